/** Ready-to-run calls with a new key: the gateway's own address, the key, a model it may use. */
export interface Snippet {
  id: 'curl' | 'javascript' | 'python';
  label: string;
  code: string;
}

export function keySnippets(secret: string, origin: string, model: string): Snippet[] {
  const base = `${origin}/v1`;
  return [
    {
      id: 'curl',
      label: 'curl',
      code: [
        `curl ${base}/chat/completions \\`,
        `  -H "Authorization: Bearer ${secret}" \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello!"}]}'`,
      ].join('\n'),
    },
    {
      id: 'javascript',
      label: 'JavaScript (openai)',
      code: [
        `import OpenAI from 'openai';`,
        ``,
        `const client = new OpenAI({`,
        `  apiKey: '${secret}',`,
        `  baseURL: '${base}',`,
        `});`,
        ``,
        `const completion = await client.chat.completions.create({`,
        `  model: '${model}',`,
        `  messages: [{ role: 'user', content: 'Hello!' }],`,
        `});`,
        `console.log(completion.choices[0].message.content);`,
      ].join('\n'),
    },
    {
      id: 'python',
      label: 'Python (openai)',
      code: [
        `from openai import OpenAI`,
        ``,
        `client = OpenAI(`,
        `    api_key="${secret}",`,
        `    base_url="${base}",`,
        `)`,
        ``,
        `completion = client.chat.completions.create(`,
        `    model="${model}",`,
        `    messages=[{"role": "user", "content": "Hello!"}],`,
        `)`,
        `print(completion.choices[0].message.content)`,
      ].join('\n'),
    },
  ];
}
