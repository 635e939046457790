/**
 * How long the platform lets one HTTP call run: Azure's front end cuts an HTTP-triggered function
 * at 230 s, whatever its functionTimeout. Stated once here; host.json's functionTimeout, the
 * gateway's forward-request timeout (infra/policies/summary-api.xml), the export's own deadline and
 * both clients' silence bound are held to it by test/unit/http/platform-limit.test.ts.
 */
export const PLATFORM_HTTP_LIMIT_SECONDS = 230;

/** How long an export may run: 30 s inside the platform's limit, so that its 503 still reaches the caller. */
export const EXPORT_DEADLINE_MS = (PLATFORM_HTTP_LIMIT_SECONDS - 30) * 1000;
