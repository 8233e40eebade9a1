/** Event-stream messages as Bedrock sends them (clouds.md §2), for the simulator and the tests' fakes. */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const text = (value: string) => ({ type: 'string' as const, value });

/** One event (`:event-type` = the Converse member, e.g. `contentBlockDelta`), its payload JSON. */
export const eventFrame = (eventType: string, payload: unknown): Buffer =>
  Buffer.from(codec.encode({ headers: { ':message-type': text('event'), ':event-type': text(eventType), ':content-type': text('application/json') }, body: fromUtf8(JSON.stringify(payload)) }));

/** InvokeModelWithResponseStream's `chunk`: one model event, base64 in `bytes`. */
export const chunkFrame = (modelEvent: unknown): Buffer => eventFrame('chunk', { bytes: Buffer.from(JSON.stringify(modelEvent)).toString('base64') });

/** A modeled exception in a stream (`throttlingException`, `modelStreamErrorException`…). */
export const exceptionFrame = (exceptionType: string, message: string): Buffer =>
  Buffer.from(codec.encode({ headers: { ':message-type': text('exception'), ':exception-type': text(exceptionType), ':content-type': text('application/json') }, body: fromUtf8(JSON.stringify({ message })) }));
