import { Field, Int, ObjectType } from 'type-graphql';

// A stored failure (a watermarking job's, an asynchronous search's) as GraphQL shows it: the REST
// error body with typed fields, so no plugin needs a JSON scalar for it.

@ObjectType('ApiErrorItem', { description: 'One field\'s problem in an ApiErrorBody.' })
export class ApiErrorItemObject {
  @Field(() => String, { nullable: true, description: 'The input field (snake_case, as REST names it); null for the whole input.' }) field!: string | null;
  @Field(() => String) code!: string;
  @Field(() => String) details!: string;
}

@ObjectType('ApiErrorBody', { description: 'The REST error body (status_code, code, details) of a stored failure.' })
export class ApiErrorBodyObject {
  @Field(() => Int, { nullable: true, description: 'The HTTP status REST answers with (null where the failure recorded none).' }) statusCode!: number | null;
  @Field(() => String) code!: string;
  @Field(() => String, { description: 'What went wrong; for an invalid input, each field\'s messages as "field: message".' }) details!: string;
  @Field(() => [ApiErrorItemObject], { description: 'An invalid input\'s problems, one per field and message (REST details as a list).' }) errors!: ApiErrorItemObject[];
}

/**
 * The typed object of an error body as stored: `details` is a message, or (validation errors) an
 * object of field -> messages, which becomes both a readable message and the per-field list.
 */
export function apiErrorBodyObject(body: { status_code?: unknown; code?: unknown; details?: unknown } | null | undefined): ApiErrorBodyObject | null {
  if (!body) return null;
  const statusCode = typeof body.status_code === 'number' ? body.status_code : null;
  const code = typeof body.code === 'string' ? body.code : 'server_error';
  const { details } = body;
  if (details !== null && typeof details === 'object') {
    const errors = Object.entries(details as Record<string, unknown>).flatMap(([field, messages]) =>
      (Array.isArray(messages) ? messages : [messages]).map((m) => ({ field: field === 'non_field_errors' ? null : field, code, details: String(m) })),
    );
    return { statusCode, code, details: errors.map((e) => (e.field ? `${e.field}: ${e.details}` : e.details)).join('; '), errors };
  }
  return { statusCode, code, details: details === undefined || details === null ? code : String(details), errors: [] };
}
