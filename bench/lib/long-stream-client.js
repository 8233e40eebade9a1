#!/usr/bin/env node
// The long-stream load client (issue 36), a process of its own so that reading 100,000 chunks a
// second does not delay the bench's /healthz prober. Streams arrive at a steady rate for
// `arriveForS` seconds, each lasting as long as the upstream makes it, so after one stream's
// length the open count levels off at arrival rate × length: the plateau, as a gateway sees real
// LLM traffic. Raw node:http with one keep-alive agent and no socket cap, so each open stream holds
// a socket of its own and a finished stream's socket serves a later arrival.
// argv[2]: JSON {url, headers, body, arrivalsPerS, arriveForS, plateauFromS}. Sends
// {type: 'progress', open, waiting, completed, failed} every 250 ms and {type: 'done', …} at the end.
import http from 'node:http';

const config = JSON.parse(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: Infinity });
const headers = { ...config.headers, 'content-length': String(Buffer.byteLength(config.body)) };
const total = Math.round(config.arrivalsPerS * config.arriveForS);

const state = { started: 0, waiting: 0, open: 0, completed: 0, incomplete: 0, failed: 0 };
const statuses = {};
const errorCodes = {};
/** Time to first token of each stream that arrived once the plateau was reached, in ms. */
const plateauTtft = [];
const allTtft = [];
let firstArrival;

function openStream() {
  const arrivedAtS = (performance.now() - firstArrival) / 1000;
  const started = performance.now();
  state.started++;
  state.waiting++;
  let phase = 'waiting';
  const settle = (outcome) => {
    if (phase === 'settled') return;
    state[phase]--;
    state[outcome]++;
    phase = 'settled';
  };
  const req = http.request(config.url, { method: 'POST', headers, agent });
  req.on('response', (res) => {
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    if (res.statusCode !== 200) {
      res.resume();
      res.on('end', () => settle('failed'));
      return;
    }
    let tail = Buffer.alloc(0);
    res.on('data', (data) => {
      if (phase === 'waiting') {
        const ttft = performance.now() - started;
        allTtft.push(ttft);
        if (arrivedAtS >= config.plateauFromS) plateauTtft.push(ttft);
        state.waiting--;
        state.open++;
        phase = 'open';
      }
      // Only the end is kept: a complete stream ends in [DONE].
      tail = data.length >= 32 ? data.subarray(-32) : Buffer.concat([tail, data]).subarray(-32);
    });
    res.on('end', () => settle(tail.toString('latin1').includes('[DONE]') ? 'completed' : 'incomplete'));
    res.on('error', () => settle('failed'));
  });
  req.on('error', (error) => {
    errorCodes[error.code ?? 'error'] = (errorCodes[error.code ?? 'error'] ?? 0) + 1;
    settle('failed');
  });
  req.end(config.body);
}

function percentiles(values) {
  if (values.length === 0) return { count: 0, p50: null, p90: null, p99: null, max: null };
  const sorted = Float64Array.from(values).sort();
  const at = (p) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 1000) / 1000;
  return { count: sorted.length, p50: at(50), p90: at(90), p99: at(99), max: at(100) };
}

const progress = setInterval(() => process.send({ type: 'progress', open: state.open, waiting: state.waiting, completed: state.completed, failed: state.failed + state.incomplete }), 250);

// Arrivals on a 10 ms tick, carrying the fraction over, so the rate holds at any size.
firstArrival = performance.now();
const arrivals = setInterval(() => {
  const due = Math.min(total, Math.floor(((performance.now() - firstArrival) / 1000) * config.arrivalsPerS) + 1);
  while (state.started < due) openStream();
  if (state.started < total) return;
  clearInterval(arrivals);
  const finished = setInterval(() => {
    if (state.waiting + state.open > 0) return;
    clearInterval(finished);
    clearInterval(progress);
    const { completed, incomplete, failed } = state;
    // The raw times too: the bench merges the reports of several client processes.
    process.send({ type: 'done', streams: total, completed, incomplete, failed, statuses, errorCodes, ttftMs: percentiles(plateauTtft), ttftAllMs: percentiles(allTtft), plateauTtftRaw: plateauTtft, allTtftRaw: allTtft }, () => process.exit(0));
  }, 100);
}, 10);
