/**
 * docs/recipes/fabric/SummaryJobToLake.DataPipeline read as a test needs it: the pipeline's
 * definition parts (pipeline-content.json, .platform), its activities, its parameters' defaults,
 * and the connections it names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../dev/project-root.js';
import { nested } from './data-factory-recipe.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const FABRIC_FOLDER = join(projectRoot(), 'docs/recipes/fabric/SummaryJobToLake.DataPipeline');

export const content = JSON.parse(readFileSync(join(FABRIC_FOLDER, 'pipeline-content.json'), 'utf8')) as { properties: Record<string, any> };
export const platform = JSON.parse(readFileSync(join(FABRIC_FOLDER, '.platform'), 'utf8')) as Record<string, any>;

export const fabricActivities = (): Record<string, any>[] => nested(content.properties.activities);
export const fabricActivity = (name: string) => fabricActivities().find((candidate) => candidate.name === name)!;
export const fabricDefaults = () => Object.fromEntries(Object.entries(content.properties.parameters as Record<string, { defaultValue: unknown }>).map(([name, parameter]) => [name, parameter.defaultValue]));

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
