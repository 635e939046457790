/**
 * The script of a row group worker thread, which row-group-workers.ts starts: a program of its own,
 * never imported. The deploy bundle builds it as an entry of its own, beside the chunk that starts it.
 */
import { parentPort } from 'node:worker_threads';
import { serveEncodeRequests } from './row-group-workers.js';

if (parentPort) serveEncodeRequests(parentPort);
