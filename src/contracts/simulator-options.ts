import { Type, type Static } from 'typebox';

/** Behaviour of a built-in simulator upstream (all optional; defaults answer at once). */
export const SimulatorOptionsSchema = Type.Object(
  {
    first_token_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Stream pacing; 0 streams as fast as possible. */
    tokens_per_second: Type.Optional(Type.Number({ minimum: 0 })),
    /** How long a simulated video task takes from submission to result. */
    video_task_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** How long a simulated batch (files and batches, message batches, batch mode) runs before it ends (issue 46); default 2,000. */
    batch_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Answer every request with this HTTP status and the vendor's error body. */
    fault_status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
    /** With fault_status: only the first N requests fail. */
    fault_times: Type.Optional(Type.Integer({ minimum: 1 })),
    fault_retry_after_s: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Cut streams after this many events, without the closing events. */
    cut_stream_after: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export type SimulatorOptionsConfig = Static<typeof SimulatorOptionsSchema>;
