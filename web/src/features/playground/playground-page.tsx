import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNote } from '../../components/states';
import { Loading } from '../../shell/loading';
import { api, messageOf } from '../../lib/api';
import { formatCount, formatMs } from '../../lib/format';
import { usePageTitle } from '../../lib/page-title';
import type { ApiKey, ConsoleModel, ListAnswer } from '../../lib/types';
import { apiBase, useUser } from '../../shell/session';
import { useLoad } from '../../lib/use-load';
import { streamChat, type ChatStreamResult } from './stream-chat';

/** Chat with a model through the real gateway, as one of your API keys (picked by name: the session is enough, no secret), streamed. */
export function PlaygroundPage() {
  usePageTitle('Playground');
  const user = useUser();
  const models = useLoad((signal) => api<ListAnswer<ConsoleModel>>('GET', '/console/api/models', undefined, { signal }), []);
  const keys = useLoad((signal) => api<ListAnswer<ApiKey>>('GET', `${apiBase(user)}/keys`, undefined, { signal }), [user.role]);
  const chatModels = (models.data?.data ?? []).filter((m) => m.families.includes('chat-completions'));
  const usableKeys = (keys.data?.data ?? []).filter((k) => k.status === 'active');
  const [model, setModel] = useState('');
  const [keyChoice, setKeyChoice] = useState('');
  const [system, setSystem] = useState('');
  const [message, setMessage] = useState('');
  const [maxTokens, setMaxTokens] = useState('');
  const [output, setOutput] = useState('');
  const [result, setResult] = useState<ChatStreamResult>();
  const [error, setError] = useState<string>();
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | null>(null);

  const chosenModel = model || chatModels[0]?.id || '';
  const chosenKey = keyChoice || usableKeys[0]?.id || '';

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosenKey) return setError('You have no active API key: create one on the keys page first.');
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    setError(undefined);
    setOutput('');
    setResult(undefined);
    const messages = [...(system.trim() ? [{ role: 'system', content: system }] : []), { role: 'user', content: message }];
    try {
      const done = await streamChat({
        keyId: chosenKey,
        body: { model: chosenModel, messages, ...(maxTokens ? { max_tokens: Number(maxTokens) } : {}) },
        signal: controller.signal,
        onText: (text) => setOutput((current) => current + text),
      });
      setResult(done);
    } catch (failure) {
      if ((failure as Error).name !== 'AbortError') setError(messageOf(failure));
    } finally {
      setRunning(false);
      abort.current = null;
    }
  };

  const curl = [
    `curl ${window.location.origin}/v1/chat/completions \\`,
    `  -H "Authorization: Bearer $GATEWAY_API_KEY" -H "Content-Type: application/json" \\`,
    `  -d '${JSON.stringify({ model: chosenModel, stream: true, messages: [{ role: 'user', content: message || 'Hello!' }] })}'`,
  ].join('\n');

  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Playground</h1>
      <p className="muted">
        Sends a real, streamed request to <code>/v1/chat/completions</code> as one of your API keys: it counts in usage and against the key's limits like any other.
        You are signed in, so no secret is needed. <Link to="/token">Create a key</Link>
      </p>
      {models.error !== undefined && <ErrorNote error={models.error} retry={models.reload} />}
      {keys.error !== undefined && <ErrorNote error={keys.error} retry={keys.reload} />}
      {models.loading && !models.data && <Loading what="Loading models" />}
      <form className="form" onSubmit={send}>
        <div className="grid-2">
          <label>
            Model
            <select value={chosenModel} onChange={(e) => setModel(e.target.value)} required>
              {chatModels.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </select>
          </label>
          <label>
            API key
            <select value={chosenKey} onChange={(e) => setKeyChoice(e.target.value)} required>
              {usableKeys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.prefix}…)
                </option>
              ))}
            </select>
          </label>
        </div>
        <label>
          System message (optional)
          <input value={system} onChange={(e) => setSystem(e.target.value)} />
        </label>
        <label>
          Message
          <textarea required value={message} onChange={(e) => setMessage(e.target.value)} />
        </label>
        <div className="row">
          <label className="inline">
            Max tokens
            <input className="inline-input" type="number" min={1} value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} placeholder="default" />
          </label>
          <button type="submit" className="primary" disabled={running || !chosenModel || !chosenKey}>
            {running ? 'Streaming…' : 'Send'}
          </button>
          {running && (
            <button type="button" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          )}
        </div>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <h2 className="section-title">Answer</h2>
      <div className="output" aria-live="off" aria-busy={running} data-testid="playground-output">
        {output || <span className="muted">{running ? 'Waiting for the first token…' : 'The answer streams here.'}</span>}
      </div>
      <div className="stats" role="status" aria-live="polite">
        {result && (
          <>
            <span>First token {formatMs(result.firstTokenMs)}</span>
            <span>Total {formatMs(result.totalMs)}</span>
            <span>
              Tokens {formatCount(result.usage?.prompt_tokens)} in / {formatCount(result.usage?.completion_tokens)} out
            </span>
            <span>Finish {result.finishReason ?? '—'}</span>
          </>
        )}
      </div>
      <details>
        <summary>The same request with curl</summary>
        <pre className="code" tabIndex={0}>
          {curl}
        </pre>
      </details>
    </section>
  );
}
