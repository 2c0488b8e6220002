import test from 'ava';
import { ApiError, filterSql, parseFilterName, parseFilterQuery, type FilterFields } from '../src/index.js';

const fields: FilterFields = {
  _id: { type: 'integer', sql: 'a.id' },
  name: { type: 'string', sql: 'a.name' },
  'site.domain': { type: 'string', sql: 's.domain', lowerCase: true },
  count: { type: 'integer', sql: 'a.count' },
  type: { type: 'integer', sql: 'a.type', choices: [0, 1, 2, 3, 4] },
  created: { type: 'date', sql: 'a.created' },
  export: { type: 'boolean', sql: 'a.export' },
  tags: { type: 'string-list', sql: 'a.tags' },
  sessions: { type: 'integer-list', sql: 'a.sessions' },
};

const sql = (query: Record<string, string | string[]>) => {
  const params: unknown[] = [];
  const where = filterSql(parseFilterQuery(query, fields, { notFilterable: ['_version', 'deleted'], reserved: ['blacklist'] }), fields, params);
  return { where, params };
};

const refused = (t: import('ava').ExecutionContext, query: Record<string, string>, param: string, pattern: RegExp) => {
  const err = t.throws(() => sql(query), { instanceOf: ApiError });
  t.is(err?.statusCode, 400);
  t.is(err?.code, 'invalid_filter');
  const details = err?.details as Record<string, string[]>;
  t.truthy(details[param], `details name ${param}: ${JSON.stringify(details)}`);
  t.regex(details[param]!.join(' '), pattern);
};

test('parameter names: every spelling of the spec', (t) => {
  t.deepEqual(parseFilterName('name'), { field: 'name', op: 'eq' });
  t.deepEqual(parseFilterName('!name'), { field: 'name', op: 'ne' });
  t.deepEqual(parseFilterName('name__isnull'), { field: 'name', op: 'isnull' });
  t.deepEqual(parseFilterName('name__startswith'), { field: 'name', op: 'startswith' });
  t.deepEqual(parseFilterName('name__in'), { field: 'name', op: 'in' });
  t.deepEqual(parseFilterName('count__gt'), { field: 'count', op: 'gt' });
  t.deepEqual(parseFilterName('count__lt'), { field: 'count', op: 'lt' });
  t.deepEqual(parseFilterName('count__gte'), { field: 'count', op: 'gte' });
  t.deepEqual(parseFilterName('count__lte'), { field: 'count', op: 'lte' });
  // `count>=5` reaches the server as the parameter `count>` with the value 5.
  t.deepEqual(parseFilterName('count>'), { field: 'count', op: 'gte' });
  t.deepEqual(parseFilterName('count<'), { field: 'count', op: 'lte' });
  t.deepEqual(parseFilterName('site.domain__startswith'), { field: 'site.domain', op: 'startswith' });
});

test('equal and different', (t) => {
  t.deepEqual(sql({ name: 'x' }), { where: ['a.name = $1'], params: ['x'] });
  t.deepEqual(sql({ '!name': 'x' }), { where: ['a.name IS DISTINCT FROM $1'], params: ['x'] });
  t.deepEqual(sql({ count: '12' }), { where: ['a.count = $1::bigint'], params: [12] });
  t.deepEqual(sql({ export: 'false' }), { where: ['a.export = $1'], params: [false] });
  t.deepEqual(sql({ 'site.domain': 'LeMonde.FR' }), { where: ['s.domain = $1'], params: ['lemonde.fr'] });
});

test('isnull takes a boolean', (t) => {
  t.deepEqual(sql({ name__isnull: 'true' }).where, ['a.name IS NULL']);
  t.deepEqual(sql({ name__isnull: 'false' }).where, ['a.name IS NOT NULL']);
  t.deepEqual(sql({ tags__isnull: 'true' }).where, ['COALESCE(cardinality(a.tags), 0) = 0']);
  refused(t, { name__isnull: 'perhaps' }, 'name__isnull', /boolean/);
});

test('startswith on strings and on list items, never on numbers', (t) => {
  t.deepEqual(sql({ name__startswith: '/home/' }), { where: ['a.name LIKE $1'], params: ['/home/%'] });
  t.deepEqual(sql({ name__startswith: '50%_off\\' }).params, ['50\\%\\_off\\\\%'], 'LIKE wildcards in the prefix are literal');
  t.regex(sql({ tags__startswith: 'le' }).where[0]!, /unnest\(a\.tags\)/);
  refused(t, { count__startswith: '1' }, 'count__startswith', /cannot be used/);
  refused(t, { name__startswith: '' }, 'name__startswith', /prefix/);
});

test('in: comma-separated values, typed', (t) => {
  t.deepEqual(sql({ count__in: '1,2,3' }), { where: ['a.count = ANY($1::bigint[])'], params: [[1, 2, 3]] });
  t.deepEqual(sql({ name__in: 'a,b' }), { where: ['a.name = ANY($1::text[])'], params: [['a', 'b']] });
  t.deepEqual(sql({ tags__in: 'a,b' }), { where: ['a.tags && $1::text[]'], params: [['a', 'b']] });
  t.deepEqual(sql({ sessions: ['4', '5,6'] }), { where: ['a.sessions && $1::int[]'], params: [[4, 5, 6]] }, 'repeated and comma-separated');
  refused(t, { count__in: '1,x' }, 'count__in', /"x" is not an integer/);
  refused(t, { name__in: ',' }, 'name__in', /At least one/);
});

test('comparisons on integers, strings and dates', (t) => {
  t.deepEqual(sql({ count__gt: '5' }).where, ['a.count > $1::bigint']);
  t.deepEqual(sql({ count__lt: '5' }).where, ['a.count < $1::bigint']);
  t.deepEqual(sql({ count__gte: '5' }).where, ['a.count >= $1::bigint']);
  t.deepEqual(sql({ count__lte: '5' }).where, ['a.count <= $1::bigint']);
  t.deepEqual(sql({ 'count>': '5' }).where, ['a.count >= $1::bigint']);
  t.deepEqual(sql({ 'count<': '5' }).where, ['a.count <= $1::bigint']);
  t.deepEqual(sql({ name__gt: 'm' }).where, ['a.name > $1']);
  refused(t, { count__gt: '5.5' }, 'count__gt', /not an integer/);
  refused(t, { export__gt: 'true' }, 'export__gt', /cannot be used/);
});

test('dates: a day covers the whole day, a date-time the instant', (t) => {
  const day = sql({ created: '2026-03-01' });
  t.deepEqual(day.where, ['(a.created >= $1 AND a.created < $2)']);
  t.deepEqual(day.params.map((d) => (d as Date).toISOString()), ['2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z']);
  const lte = sql({ 'created<': '2026-03-01' });
  t.deepEqual(lte.where, ['a.created < $1']);
  t.is((lte.params[0] as Date).toISOString(), '2026-03-02T00:00:00.000Z', '<= a day includes that day');
  const gt = sql({ created__gt: '2026-03-01T10:00:00Z' });
  t.deepEqual(gt.where, ['a.created >= $1']);
  t.is((gt.params[0] as Date).toISOString(), '2026-03-01T10:00:00.001Z');
  t.deepEqual(sql({ created__lt: '2026-03-01' }).where, ['a.created < $1']);
  t.deepEqual(sql({ created__gte: '2026-03-01' }).where, ['a.created >= $1']);
  t.regex(sql({ '!created': '2026-03-01' }).where[0]!, /IS NULL OR NOT/);
  t.regex(sql({ created__in: '2026-03-01,2026-03-05' }).where[0]!, / OR /);
  refused(t, { created__gte: 'yesterday' }, 'created__gte', /ISO 8601/);
  refused(t, { created: '2026-02-30' }, 'created', /ISO 8601/);
  refused(t, { created: '2026-03-01', created__lt: '2026-04-01' }, 'created', /cannot be combined/);
});

test('enums refuse values outside their choices', (t) => {
  t.deepEqual(sql({ type__in: '2,4' }).params, [[2, 4]]);
  refused(t, { type: '9' }, 'type', /not one of/);
});

test('a field\'s own SQL that refuses a value is asked when the query is parsed, with the other errors', (t) => {
  const states = ['new', 'infringing'];
  const own: FilterFields = {
    ...fields,
    state: {
      type: 'string',
      sql: 'r.state',
      custom: (op, value) => {
        const bad = ([value].flat() as unknown[]).find((v) => !states.includes(v as string));
        if (bad !== undefined) throw new ApiError(400, 'invalid_filter', { [op === 'in' ? 'state__in' : 'state']: [`"${String(bad)}" is not a state.`] });
        return undefined;
      },
    },
  };
  // Before any SQL is built (a CSV export starts its 200 before building it): parseFilterQuery itself refuses.
  const err = t.throws(() => parseFilterQuery({ state__in: 'new,nope', count: 'x' }, own), { instanceOf: ApiError });
  t.is(err?.code, 'invalid_filter');
  t.deepEqual(Object.keys(err?.details as object).sort(), ['count', 'state__in']);
  t.regex((err?.details as Record<string, string[]>).state__in!.join(' '), /"nope" is not a state/);
  const params: unknown[] = [];
  t.deepEqual(filterSql(parseFilterQuery({ state: 'infringing' }, own), own, params), ['r.state = $1']);
  t.deepEqual(params, ['infringing']);
});

test('lists: equal means "has", different means "has none of"', (t) => {
  t.deepEqual(sql({ tags: 'legal' }), { where: ['a.tags && $1::text[]'], params: [['legal']] });
  t.deepEqual(sql({ '!tags': 'legal' }), { where: ["NOT (COALESCE(a.tags, '{}') && $1::text[])"], params: [['legal']] });
  refused(t, { sessions: 'seven' }, 'sessions', /not an integer/);
  refused(t, { sessions: '2147483648' }, 'sessions', /out of range/);
  refused(t, { sessions__in: '1,-2147483649' }, 'sessions__in', /out of range/);
  refused(t, { tags__gt: 'a' }, 'tags__gt', /cannot be used/);
});

test('unknown and non-filterable fields are named; reserved parameters are not filters', (t) => {
  refused(t, { colour: 'red' }, 'colour', /Unknown filter field "colour"/);
  refused(t, { _version: '2' }, '_version', /cannot be filtered on/);
  refused(t, { '!deleted': 'true' }, '!deleted', /cannot be filtered on/);
  t.deepEqual(sql({ page: '2', page_size: '10', format: 'csv', cursor: 'x', blacklist: 'true' }).where, []);
});

test('several mistakes are reported together, and conditions combine', (t) => {
  const err = t.throws(() => sql({ colour: 'red', count__gt: 'x' }), { instanceOf: ApiError });
  t.deepEqual(Object.keys(err!.details as object).sort(), ['colour', 'count__gt']);
  t.is(err!.errors?.length, 2);
  const ok = sql({ name__startswith: '/a', count__gte: '3', export: 'true' });
  t.deepEqual(ok.where, ['a.name LIKE $1', 'a.count >= $2::bigint', 'a.export = $3']);
});

test('a field may bring its own SQL for an operator (for example a folder path)', (t) => {
  const own: FilterFields = {
    path: { type: 'string', sql: 'm.path', custom: (op, v, p) => (op === 'eq' ? `(m.path = ${p(v)} OR m.path LIKE ${p(`${String(v)}/%`)})` : undefined) },
  };
  const params: unknown[] = [];
  t.deepEqual(filterSql(parseFilterQuery({ path: '/a' }, own), own, params), ['(m.path = $1 OR m.path LIKE $2)']);
  t.deepEqual(filterSql(parseFilterQuery({ path__startswith: '/a' }, own), own, []), ['m.path LIKE $1']);
});

// Found by the fuzz suite: `?constructor=1` reached Object.prototype's members (a field, an alias, an
// error list) and answered 500 on every filtered collection.
test('names of Object.prototype members are unknown fields like any other', (t) => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf__gte', '__proto____startswith']) {
    refused(t, Object.fromEntries([[name, '1']]), name, /Unknown filter field/);
  }
  const aliased = () => parseFilterQuery(Object.fromEntries([['constructor', '1']]), fields, { aliases: { other: 'name' } });
  t.throws(aliased, { instanceOf: ApiError });
  t.deepEqual(Object.keys(Object.prototype), [], 'nothing was added to Object.prototype');
});
