/**
 * docs/recipes/data-factory.json read as a test needs it: its resources, the activities of its
 * pipelines, and what a pipeline's ForEach would send for each month (its expressions evaluated by
 * adf-expression.ts with the pipeline's parameter defaults).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../dev/project-root.js';
import { evaluate } from './adf-expression.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface Resource { name: string; type: string; properties: Record<string, any> }

export const template = JSON.parse(readFileSync(join(projectRoot(), 'docs/recipes/data-factory.json'), 'utf8')) as { parameters: Record<string, unknown>; resources: Resource[] };

export const resource = (name: string) => template.resources.find((candidate) => candidate.name.endsWith(`/${name}')]`))!;
/** Every activity of a list, those inside a ForEach, Until or If too (Data Factory's and Fabric's pipelines nest alike). */
export function nested(list: readonly Record<string, any>[]): Record<string, any>[] {
  return list.flatMap((activity) => [activity, ...['activities', 'ifTrueActivities', 'ifFalseActivities'].flatMap((inner) => nested(activity.typeProperties?.[inner] ?? []))]);
}
export const activities = (pipeline: string): Record<string, any>[] => nested(resource(pipeline).properties.activities);
export const activity = (pipeline: string, name: string) => activities(pipeline).find((candidate) => candidate.name === name)!;
export const defaults = (pipeline: string) => Object.fromEntries(Object.entries(resource(pipeline).properties.parameters as Record<string, { defaultValue: unknown }>).map(([name, parameter]) => [name, parameter.defaultValue]));

/** What a pipeline's ForEach would send for each month, with its parameters' defaults (and `overrides`). */
export function monthRequests(pipeline: string, overrides: Record<string, unknown> = {}) {
  const parameters = { ...defaults(pipeline), ...overrides };
  const each = activity(pipeline, 'EachMonth');
  const copy = activity(pipeline, 'CopyMonth');
  const input = copy.inputs[0];
  const dataset = resource(input.referenceName).properties;
  const datasetParameters = Object.fromEntries(Object.entries(input.parameters as Record<string, { value: string }>).map(([name, value]) => [name, evaluate(value.value, { parameters })]));
  const relative = dataset.typeProperties.relativeUrl ?? dataset.typeProperties.location.relativeUrl;
  const source = copy.typeProperties.source;
  const settings = source.storeSettings ?? source;
  return (evaluate(each.typeProperties.items.value, { parameters }) as number[]).map((item) => ({
    relativeUrl: String(evaluate(relative.value, { parameters, dataset: datasetParameters })),
    body: String(evaluate(settings.requestBody.value, { parameters, item })),
    headers: settings.additionalHeaders,
    file: String(evaluate(copy.outputs[0].parameters.file.value, { parameters, item })),
    item,
  }));
}

