/**
 * The Fabric items of docs/recipes/fabric/ read as a test needs them: each pipeline's definition
 * parts (pipeline-content.json, .platform), its activities, its parameters' defaults, the
 * connections it names, and the item formats they are checked against.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv07, { type ValidateFunction } from 'ajv';
import { projectRoot } from '../../dev/project-root.js';
import { nested } from './data-factory-recipe.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const FABRIC_RECIPES = join(projectRoot(), 'docs/recipes/fabric');

/** One DataPipeline item's folder, read. */
export function fabricItem(name: string) {
  const folder = join(FABRIC_RECIPES, `${name}.DataPipeline`);
  const content = JSON.parse(readFileSync(join(folder, 'pipeline-content.json'), 'utf8')) as { properties: Record<string, any> };
  const platform = JSON.parse(readFileSync(join(folder, '.platform'), 'utf8')) as Record<string, any>;
  const activities = (): Record<string, any>[] => nested(content.properties.activities);
  return {
    content,
    platform,
    activities,
    activity: (activity: string) => activities().find((candidate) => candidate.name === activity)!,
    defaults: () => Object.fromEntries(Object.entries(content.properties.parameters as Record<string, { defaultValue: unknown }>).map(([parameter, { defaultValue }]) => [parameter, defaultValue])),
  };
}

export const jobItem = fabricItem('SummaryJobToLake');
export const deltaItem = fabricItem('SummaryDeltaToWarehouse');
export const { content, platform } = jobItem;
export const fabricActivities = jobItem.activities;
export const fabricActivity = jobItem.activity;
export const fabricDefaults = jobItem.defaults;
export const deltaActivity = deltaItem.activity;
export const deltaDefaults = deltaItem.defaults;

/** The connection each activity reaches (its own, or its Copy source's dataset's). */
export function connectionOf(activity: Record<string, any>): string | undefined {
  return activity.externalReferences?.connection ?? activity.typeProperties?.source?.datasetSettings?.externalReferences?.connection;
}

/** The connections, by what the docs tell the user to create them as (docs/consuming.md, "Fabric"). */
export const CONNECTIONS = {
  keyVault: connectionOf(fabricActivity('GetClientSecret'))!,
  token: connectionOf(fabricActivity('GetToken'))!,
  service: connectionOf(fabricActivity('StartJob'))!,
  /** The service again, as a REST connection: what a Copy activity's REST source needs (SaveManifest). */
  serviceRest: connectionOf(fabricActivity('SaveManifest'))!,
  storage: connectionOf(fabricActivity('CopyFile'))!,
};

/** The same of the delta item: the Web connection for AskAgain, the REST one for CopyDelta. */
export const DELTA_CONNECTIONS = {
  keyVault: connectionOf(deltaActivity('GetClientSecret'))!,
  token: connectionOf(deltaActivity('GetToken'))!,
  service: connectionOf(deltaActivity('AskAgain'))!,
  serviceRest: connectionOf(deltaActivity('CopyDelta'))!,
};

/** Fabric's item formats: pipeline-content.json and .platform, as test/unit/docs/fixtures/fabric writes them down. */
export function fabricFormats(): { validateContent: ValidateFunction; validatePlatform: ValidateFunction } {
  const Ajv = Ajv07 as unknown as typeof Ajv07.default;
  const ajv = new Ajv({ strict: false, allErrors: false });
  const fixtures = join(projectRoot(), 'test/unit/docs/fixtures/fabric');
  const schema = (file: string) => JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as object;
  return { validateContent: ajv.compile(schema('pipeline-content.schema.json')), validatePlatform: ajv.compile(schema('platform.schema.json')) };
}

/** A document's first errors against a format, empty when it is valid. */
export function formatErrors(validate: ValidateFunction, document: unknown): string[] {
  return validate(document) ? [] : (validate.errors ?? []).slice(0, 3).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}
