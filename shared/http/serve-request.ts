import type { HttpRequest } from '@azure/functions';
import type { Principal } from '../auth/authenticate.js';
import type { StoreMeter } from '../store/record-store.js';
import { inRequestSpan } from '../telemetry/telemetry.js';
import { CallerGone } from './caller-gone.js';
import { compressResponse } from './compress-response.js';
import { errorResponse } from './error-response.js';
import type { HttpResult } from './output-stages/output-stage.js';
import { observeRequest, type RequestFacts } from './request-observer.js';
import { baseHeaders } from './response-headers.js';
import type { SummaryDeps } from './summary-deps.js';

/** One request being served, as its work sees it. */
export interface ServedRequest {
  readonly requestId: string;
  /** The caller, whose three credentials were checked before the work began. */
  readonly principal: Principal;
  header(name: string): string | null;
  /** What the store reads of this request cost: every read adds to it. */
  readonly meter: StoreMeter;
  /** What the work tells the log line beside the caller (the format Accept chose). */
  readonly told: { format?: RequestFacts['format'] };
}

/**
 * The edges every operation shares, in one place: the request span, the request id, the
 * credentials (before anything about the request is looked at), every failure answered as
 * problem+json (anything not an ApiError a 500 INTERNAL), the content coding Accept-Encoding
 * asks for, and the log line, span attributes and metrics of the answer. `work` does the rest.
 *
 * @example
 * return serveRequest({ spanName: 'GET /v1/exports/{id}', logName: 'exports.status' }, deps, request, async ({ principal }) => answer);
 */
export async function serveRequest(
  names: { readonly spanName: string; readonly logName: string },
  deps: Pick<SummaryDeps, 'authenticate' | 'log'>,
  request: HttpRequest,
  work: (served: ServedRequest) => Promise<HttpResult>,
): Promise<HttpResult> {
  const header = (name: string) => request.headers.get(name);
  return inRequestSpan(names.spanName, header, async (span) => {
    const observer = observeRequest(names.logName, header, span, deps.log);
    const { requestId } = observer;
    const meter: StoreMeter = { documents: 0, requestCharge: 0 };
    const told: { -readonly [K in keyof RequestFacts]: RequestFacts[K] } = {};
    let answer: HttpResult;
    try {
      const principal = (told.principal = await deps.authenticate({ authorization: header('authorization'), apiKey: header('x-api-key') }));
      answer = await work({ requestId, principal, header, meter, told });
    } catch (error) {
      if (error instanceof CallerGone) {
        // Nobody is there to read an answer: 499 goes to the log line only.
        answer = { status: 499, headers: baseHeaders('text/plain', requestId), body: '', records: 0 };
      } else {
        const problem = errorResponse(error, requestId, (unexpected) => deps.log.fault(requestId, unexpected));
        told.failure = { code: problem.code, error };
        answer = withCost(problem, meter);
      }
    }
    return observer.finished(await compressResponse(answer, header('accept-encoding')), told);
  });
}

/** A failed answer with what its store reads cost, when the store was read before it failed (a 412 after its check). */
function withCost<T extends HttpResult>(answer: T, meter: StoreMeter): T {
  return meter.documents > 0 || meter.requestCharge > 0 ? { ...answer, store: meter } : answer;
}
