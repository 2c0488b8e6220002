import { file, listPage, notFound, ok, parseBoolean, queryString, validationError, type ErrorItem, type RouteContext, type RouteSpec } from '@filigrane/core';
import { fetchClientUrl } from '@filigrane/core';
import { ASSETS, DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, WatermarkingService, type AssetName } from './watermarking.service.js';
import type { WatermarkingJob } from './watermarking.entity.js';
import { parseOptions, type WatermarkingOptions } from './watermarking-options.js';
import { WATERMARKING_PAGE_SCHEMA, WATERMARKING_QUERY, WATERMARKING_REQUEST_SCHEMA, WATERMARKING_RESULT_SCHEMA, WATERMARKING_STATUS_SCHEMA } from './watermarking.schemas.js';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'];
const FIELDS = ['url', 'sync', 'timeout'];

/** The image and the options of a POST: a binary body (options in the query) or JSON {url, sync, timeout}. */
async function watermarkingInput(ctx: RouteContext): Promise<{ bytes: Buffer; options: WatermarkingOptions }> {
  if (ctx.rawBody) {
    const timeout = queryString(ctx.query, 'timeout');
    return {
      bytes: ctx.rawBody,
      options: parseOptions(parseBoolean(queryString(ctx.query, 'sync'), 'sync'), timeout === undefined || timeout === '' ? undefined : Number(timeout)),
    };
  }
  const body = ctx.body as Record<string, unknown>;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ field: 'url', code: 'required', details: 'Expected a JSON object with url (and optionally sync, timeout), or a binary image.' }]);
  }
  const errors: ErrorItem[] = Object.keys(body)
    .filter((k) => !FIELDS.includes(k))
    .map((k) => ({ field: k, code: 'unknown_field', details: `Unknown field "${k}".` }));
  if (typeof body.url !== 'string' || body.url.trim() === '') errors.push({ field: 'url', code: 'required', details: 'url (an http(s) URL or a data URI of the image) is required.' });
  let options: WatermarkingOptions | undefined;
  try {
    options = parseOptions(body.sync, body.timeout);
  } catch (err) {
    errors.push(...((err as { errors?: ErrorItem[] }).errors ?? []));
  }
  if (errors.length || !options) throw validationError(errors);
  // Validation first, then the fetch: a malformed request costs no outbound request.
  return { bytes: await fetchClientUrl(ctx, body.url as string), options };
}

/** 200 with the result, 201 with the pollable status (async), or 504 when a sync wait timed out. */
export function watermarkingResponse(service: WatermarkingService, job: WatermarkingJob, options: WatermarkingOptions, baseUrl: string) {
  if (job.status === 'complete' && options.sync) return ok(service.result(job, baseUrl));
  const view = service.view(job, baseUrl);
  const headers = { location: view.url };
  if (!options.sync) return { status: 201, body: view, headers };
  return {
    status: 504,
    headers,
    body: {
      status_code: 504,
      code: 'watermarking_timeout',
      details: `The watermarking did not finish within ${options.timeoutSeconds} s. It goes on: poll ${view.url} for its result instead of submitting the image again.`,
      id: view.id,
      url: view.url,
    },
  };
}

export const watermarkingRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'POST',
    path: '/watermarking/',
    accepts: ['json', 'binary'],
    binaryTypes: IMAGE_TYPES,
    summary: 'Watermark an image: 200 with the result (sync), 201 with a pollable status (sync=false), 504 on timeout',
    query: WATERMARKING_QUERY,
    requestSchema: WATERMARKING_REQUEST_SCHEMA,
    responses: { 200: { description: 'The Watermarking result', schema: WATERMARKING_RESULT_SCHEMA }, 201: { description: 'sync=false: poll the url', schema: WATERMARKING_STATUS_SCHEMA } },
    async handler(ctx) {
      const { bytes, options } = await watermarkingInput(ctx);
      const service = ctx.container.get(WatermarkingService);
      const job = await service.watermark(ctx.principal!.accountId, bytes, options);
      return watermarkingResponse(service, job, options, ctx.baseUrl);
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/watermarking/',
    summary: 'The account\'s watermarkings that have not expired, newest first',
    responses: { 200: { schema: WATERMARKING_PAGE_SCHEMA } },
    async handler(ctx) {
      const service = ctx.container.get(WatermarkingService);
      return ok(await listPage(ctx, (offset, limit) => service.list(ctx.principal!.accountId, offset, limit), (r) => service.view(r, ctx.baseUrl)));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/watermarking/:id/',
    summary: 'Status of a watermarking; its result once complete',
    responses: { 200: { schema: WATERMARKING_STATUS_SCHEMA } },
    async handler(ctx) {
      const service = ctx.container.get(WatermarkingService);
      return ok(service.view(await service.find(ctx.principal!.accountId, ctx.params.id ?? ''), ctx.baseUrl));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/watermarking/:id/:asset',
    summary: 'An asset of a watermarking: original, watermarked or registration (.lmk)',
    responses: { 200: { files: ['image/jpeg', 'image/png', 'image/gif', 'application/lmk'] } },
    async handler(ctx) {
      const asset = ctx.params.asset ?? '';
      const service = ctx.container.get(WatermarkingService);
      if (!(ASSETS as readonly string[]).includes(asset)) throw notFound(`No such asset: use ${ASSETS.join(', ')}.`);
      const found = await service.asset(ctx.principal!.accountId, ctx.params.id ?? '', asset as AssetName);
      return file(found.data, found.contentType, found.filename);
    },
  },
];
