/** The version of this service (a test holds it equal to package.json's). */
export const SERVICE_VERSION = '0.1.0';

// Baked in by `npm run package` (esbuild `define`): the commit the deploy artifact was built from.
declare const __SUMMARY_BUILD__: string | undefined;

/** The build the code comes from: the artifact's commit, or `dev` for a local build. */
export const BUILD_ID = typeof __SUMMARY_BUILD__ === 'string' ? __SUMMARY_BUILD__ : 'dev';

/**
 * What every Parquet file's footer says wrote it, in the form Java readers parse (PARQUET-251,
 * parquet-mr's `VersionParser`): `<application> version <x.y.z> (build <id>)`.
 */
export const CREATED_BY = `summary-data-service version ${SERVICE_VERSION} (build ${BUILD_ID})`;
