import type { JsonSchema } from '@filigrane/core';
import type { WebhookDelivery, WebhookEndpoint } from './webhook.entities.js';
import { WEBHOOK_EVENTS } from './webhook-events.js';

export const endpointUrl = (baseUrl: string, id: number) => `${baseUrl}/api/v4/account/webhooks/${id}/`;

export function endpointView(e: WebhookEndpoint, baseUrl: string) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    enabled: e.enabled,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince?.toISOString() ?? null,
    created: e.created.toISOString(),
    updated: e.updated.toISOString(),
    deliveries: `${endpointUrl(baseUrl, e.id)}deliveries/`,
  };
}

export function deliveryView(d: WebhookDelivery) {
  const last = d.attemptLog[d.attemptLog.length - 1];
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    created: d.created.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
    last_status_code: last?.status_code ?? null,
    last_error: last?.error ?? null,
    attempt_log: d.attemptLog,
    payload: JSON.parse(d.payload) as unknown,
  };
}

// Not an enum: plugins add event types at boot (WEBHOOK_EVENT_TYPES); the service checks the list.
const EVENTS_DOC = `An event type: ${WEBHOOK_EVENTS.join(', ')}, or one a loaded plugin adds (match.reviewed...)`;
const dateTime = { type: 'string', format: 'date-time' };
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

export const ENDPOINT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'events', 'description', 'enabled', 'disabled_reason', 'failing_since', 'created', 'updated', 'deliveries'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    url: { type: 'string', format: 'uri' },
    events: { type: 'array', items: { type: 'string', description: EVENTS_DOC } },
    description: { type: 'string' },
    enabled: { type: 'boolean' },
    disabled_reason: nullable({ type: 'string' }),
    failing_since: nullable(dateTime),
    created: dateTime,
    updated: dateTime,
    deliveries: { type: 'string', format: 'uri', description: 'The delivery log of this endpoint' },
  },
};

export const CREATED_ENDPOINT_SCHEMA: JsonSchema = {
  ...ENDPOINT_SCHEMA,
  required: [...(ENDPOINT_SCHEMA.required as string[]), 'secret'],
  properties: { ...(ENDPOINT_SCHEMA.properties as object), secret: { type: 'string', pattern: '^whsec_', description: 'Signing secret, shown only in this response' } },
};

export const DELIVERY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'endpoint_id', 'event_type', 'status', 'attempts', 'created', 'delivered_at', 'next_attempt_at', 'last_status_code', 'last_error', 'attempt_log', 'payload'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'The webhook-id header, the same on every retry' },
    endpoint_id: { type: 'integer' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    attempts: { type: 'integer', minimum: 0 },
    created: dateTime,
    delivered_at: nullable(dateTime),
    next_attempt_at: nullable(dateTime),
    last_status_code: nullable({ type: 'integer' }),
    last_error: nullable({ type: 'string' }),
    attempt_log: {
      type: 'array',
      items: {
        type: 'object',
        required: ['at', 'status_code', 'error', 'duration_ms'],
        properties: { at: dateTime, status_code: nullable({ type: 'integer' }), error: nullable({ type: 'string' }), duration_ms: { type: 'integer' } },
      },
    },
    payload: {
      type: 'object',
      required: ['type', 'timestamp', 'data'],
      properties: { type: { type: 'string' }, timestamp: dateTime, data: { type: 'object' } },
    },
  },
};

export const ENDPOINT_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    url: { type: 'string', format: 'uri', maxLength: 2000 },
    events: { type: 'array', minItems: 1, items: { type: 'string', description: EVENTS_DOC } },
    description: { type: 'string', maxLength: 255 },
    enabled: { type: 'boolean', description: 'PATCH only: true re-enables a disabled endpoint' },
  },
};
