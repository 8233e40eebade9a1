import { randomUUID } from 'node:crypto';
import { redactBody, redactError } from '../gateway/channel-redactor.js';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { Agent } from '../gateway/undici-agent.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { Channel } from '../gateway/channel.js';
import { readErrorBody } from '../gateway/upstream-client.js';
import { buildUpstreamGuard, type UpstreamGuard } from '../gateway/upstream-guard.js';
import { cancellationOf } from '../gateway/cancellation.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { chargeOf } from '../usage/charge.js';
import { downloadVideo, videoDir } from './media-store.js';
import { VIDEO_COMPLETED } from '../usage/budget-holds.js';
import { NOT_SUBMITTED, VideoTaskRepo } from './task-repo.js';
import type { VideoAdapter, VideoAdapterSurface } from '../contracts/video-adapter.js';
import { completedChange, isTerminal, observedChange, type VideoSurface, type VideoTask } from './video-task.js';
import { type VideoFailureCode } from '../contracts/video-adapter.js';
import type { MediaFacts } from '../contracts/request-facts.js';

export interface VideoTaskPollerOptions {
  deps: GatewayDeps;
  surface: VideoSurface & VideoAdapterSurface;
  log: FastifyBaseLogger;
  /** The media size a stored task request asks for (its family's facts), which its charge prices. */
  mediaOf: (request: unknown) => MediaFacts;
  /** How often the background loop looks for due tasks (default: `video_tasks.poll_tick_ms`, else 500). */
  tickMs?: number;
  /** How long a claim on a task lasts unless renewed (default: `video_tasks.lease_ms`, else 30 s). */
  leaseMs?: number;
  /** A GET refreshes a running task from upstream when it was last polled longer ago than this. */
  staleAfterMs?: number;
}

/**
 * A poll renews its lease every third of this while it runs (a download can take minutes), so
 * this is only how long a task waits after the instance polling it died: then another takes it.
 */
const LEASE_MS = 30_000;
const BATCH = 16;
const MAX_POLL_FAILURES = 8;
/** Real vendors suggest polling every ~15 s; young tasks are polled sooner. */
const MIN_INTERVAL_MS = 1_000;
const MAX_INTERVAL_MS = 15_000;

/**
 * Brings video tasks up to date with their upstream: on demand (a client GET of a stale running
 * task) and in a background loop for due tasks. A row lease makes sure only one poller, in this
 * process or another instance on the same database, handles a task at a time. Polls always go to
 * the channel that created the task, looked up by name.
 */
export class VideoTaskPoller {
  readonly repo: VideoTaskRepo;
  /** Unique per poller; host and pid tell an operator which instance holds a task. */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  private readonly stopping = new AbortController();
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  /** Result files are fetched on their own pool, without any channel's credentials. */
  private readonly downloads = new Agent({ connections: 8, keepAliveTimeout: 10_000 });

  private readonly upstreamGuard: UpstreamGuard;

  constructor(private readonly options: VideoTaskPollerOptions) {
    this.repo = new VideoTaskRepo(options.deps.db);
    this.upstreamGuard = buildUpstreamGuard(options.deps.config);
    this.leaseMs = options.leaseMs ?? options.deps.config.file.video_tasks?.lease_ms ?? LEASE_MS;
  }

  start(): void {
    if (this.stopping.signal.aborted || this.timer) return;
    this.schedule();
  }

  /** Stops the loop, aborts polls in flight (their leases are given back) and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.current;
    await this.downloads.close();
  }

  /** Returns the task as it is now, asking upstream first when it is running and not fresh. */
  async refreshIfStale(task: VideoTask): Promise<VideoTask> {
    const staleAfter = this.options.staleAfterMs ?? 1_000;
    if (isTerminal(task.status) || task.upstreamId === NOT_SUBMITTED || this.stopping.signal.aborted) return task;
    if (task.polledAt !== null && this.options.deps.now() - task.polledAt < staleAfter) return task;
    return this.poll(task);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.current = this.tick().finally(() => {
        this.current = undefined;
        if (!this.stopping.signal.aborted) this.schedule();
      });
    }, this.options.tickMs ?? this.options.deps.config.file.video_tasks?.poll_tick_ms ?? 500);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const due = await this.repo.findDue(this.options.surface, this.options.deps.now(), BATCH);
      await Promise.all(due.map((task) => this.poll(task)));
    } catch (error) {
      if (!this.stopping.signal.aborted) this.options.log.error({ err: error }, 'video task poll loop failed');
    }
  }

  /** One poll under the task's lease; returns the task as stored afterwards. */
  private async poll(seen: VideoTask): Promise<VideoTask> {
    const { deps } = this.options;
    if (!(await this.repo.acquireLease(seen.id, this.owner, deps.now(), this.leaseMs))) return (await this.repo.findById(seen.id)) ?? seen;
    // Read again under the lease: another instance may have polled the task since `seen` was read.
    const task = (await this.repo.findById(seen.id)) ?? seen;
    if (task.upstreamId === NOT_SUBMITTED) {
      // Due only once its submission outlived the grace period: the instance submitting it died.
      const now = deps.now();
      await this.repo.saveFailedPoll(task.id, this.owner, now, now, task.pollFailures, { code: 'upstream_error', message: 'The task was never confirmed by the upstream' });
      return (await this.repo.findById(task.id)) ?? task;
    }
    const lease = this.holdLease(task.id);
    let stage: 'poll' | 'download' = 'poll';
    try {
      const { channel, adapter } = this.adapterFor(task);
      const observed = await this.fetchState(task, channel, adapter, lease.signal);
      if (observed.status === 'completed') {
        stage = 'download';
        // The upstream names where its result lies: never a link-local or metadata address (issue 44), and asking again changes nothing.
        const refusal = this.upstreamGuard(observed.videoUrl);
        if (refusal) {
          const now = deps.now();
          await this.repo.saveFailedPoll(task.id, this.owner, now, now, task.pollFailures + 1, { code: 'download_failed', message: `The task could not be downloaded: the upstream's result URL ${refusal}` });
          return (await this.repo.findById(task.id)) ?? task;
        }
        const video = await downloadVideo({ dispatcher: this.downloads, url: observed.videoUrl, dataDir: deps.config.dataDir, signal: lease.signal });
        const { videoUrl: _upstreamUrl, status: _status, ...facts } = observed;
        const now = deps.now();
        // Not saved means another instance took the task over: its own copy of the file wins.
        if (!(await this.repo.savePoll(task.id, this.owner, now, now, completedChange(), { ...video, ...facts }))) {
          await rm(join(videoDir(deps.config.dataDir), video.file), { force: true });
          return (await this.repo.findById(task.id)) ?? task;
        }
        await this.charge(task, now, facts.durationSeconds);
      } else {
        const now = deps.now();
        await this.repo.savePoll(task.id, this.owner, now, now + pollInterval(task, now), observedChange(task, observed, now));
      }
    } catch (error) {
      await this.recordFailure(task, error, stage);
    } finally {
      lease.release();
    }
    return (await this.repo.findById(task.id)) ?? task;
  }

  /**
   * Renews the task's lease while a poll runs. The signal aborts when the poller stops or the
   * lease was lost (this instance stalled past the lease and another took the task over).
   */
  private holdLease(id: string): { signal: AbortSignal; release: () => void } {
    const lost = new AbortController();
    const renew = (): void => {
      this.repo.renewLease(id, this.owner, this.options.deps.now(), this.leaseMs).then(
        (held) => (held ? undefined : lost.abort()),
        // A failed renewal (database hiccup) is tried again next time; the lease is still ours.
        () => undefined,
      );
    };
    const timer = setInterval(renew, Math.max(10, Math.floor(this.leaseMs / 3)));
    timer.unref();
    return { signal: AbortSignal.any([this.stopping.signal, lost.signal]), release: () => clearInterval(timer) };
  }

  /**
   * The generated seconds are charged once, when the task completes (the create request itself
   * was recorded with no usage): `markCharged` lets one caller through even when several polls
   * or instances see the completion. Failed tasks never get here. The event's request id is the task id.
   */
  private async charge(task: VideoTask, now: number, durationSeconds: number | undefined): Promise<void> {
    const { deps } = this.options;
    if (!(await this.repo.markCharged(task.id))) return;
    const videoSeconds = durationSeconds ?? 0;
    const charge = chargeOf(deps.prices, task.channel, task.model, { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, totalTokens: 0, videoSeconds }, this.options.mediaOf(task.request));
    deps.usage.record({
      // One charge per task: a replayed journal or a second poller can never store it twice.
      entry_id: `video_${task.id}`,
      request_id: task.id,
      key_id: task.keyId,
      model: task.model,
      channel: task.channel,
      family: task.surface,
      status: 200,
      outcome: VIDEO_COMPLETED,
      prompt_tokens: 0,
      completion_tokens: 0,
      reasoning_tokens: 0,
      images: 0,
      video_seconds: videoSeconds,
      cost_usd: charge?.usd ?? 0,
      billed_price: charge?.billedPrice ?? null,
      latency_ms: now - task.createdAt,
      ttft_ms: null,
      created_at: now,
    });
  }

  private adapterFor(task: VideoTask): { channel: Channel; adapter: VideoAdapter<unknown> } {
    const channel = this.options.deps.channelControl.find(task.channel);
    const adapter = channel?.provider.video?.[this.options.surface] as VideoAdapter<unknown> | undefined;
    if (!channel || !adapter) throw new GatewayError('GW_NO_CHANNEL', `The channel '${task.channel}' that created this task is not configured for video tasks`);
    return { channel, adapter };
  }

  private async fetchState(task: VideoTask, channel: Channel, adapter: VideoAdapter<unknown>, signal: AbortSignal) {
    const call = adapter.toPollRequest({ upstreamId: task.upstreamId, capability: task.capability });
    const response = await this.options.deps.upstream.send(channel, call, cancellationOf(signal));
    if (response.status >= 400) throw redactError(adapter.fromUpstreamError(response.status, redactBody(await readErrorBody(response.body), channel.redact)), channel.redact);
    let body: unknown;
    try {
      body = await response.body.json();
    } catch (error) {
      throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream task query returned a body that is not JSON', { cause: error });
    }
    return adapter.fromPollResponse(body);
  }

  private async recordFailure(task: VideoTask, error: unknown, stage: 'poll' | 'download'): Promise<void> {
    if (this.stopping.signal.aborted) {
      await this.repo.releaseLease(task.id, this.owner).catch(() => undefined);
      return;
    }
    // Raw errors (download stream, file system) may name hosts or paths: logged, not shown.
    const failure = isGatewayError(error) ? error : new GatewayError('GW_UPSTREAM_ERROR', 'The upstream transfer failed', { cause: error });
    const failures = task.pollFailures + 1;
    const code: VideoFailureCode = stage === 'download' ? 'download_failed' : 'upstream_error';
    const giveUp = failures >= MAX_POLL_FAILURES ? { code, message: `The task could not be ${stage === 'download' ? 'downloaded' : 'queried'}: ${failure.message}` } : undefined;
    this.options.log.warn({ err: error, task: task.id, failures, stage }, 'video task poll failed');
    const now = this.options.deps.now();
    await this.repo.saveFailedPoll(task.id, this.owner, now, now + Math.min(60_000, MIN_INTERVAL_MS * 2 ** failures), failures, giveUp);
  }
}

/** Young tasks are polled about every second; older ones less often, up to every 15 s. */
function pollInterval(task: VideoTask, now: number): number {
  return Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, Math.floor((now - task.createdAt) / 10)));
}
