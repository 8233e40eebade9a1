import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/**
 * A Redis server of a test's own (the binary CI starts), so the test can kill and restart it:
 * no persistence, so a restart loses every key, as a Redis without AOF does.
 */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    const probe = async (tries: number): Promise<void> => {
      const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.ping();
        client.disconnect();
        resolve(child);
      } catch {
        client.disconnect();
        if (tries > 50) reject(new Error('redis-server did not start'));
        else setTimeout(() => void probe(tries + 1), 100);
      }
    };
    void probe(0);
  });
}

/** Kills a Redis server with SIGKILL and waits for it to be gone. */
export async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
