import test from 'ava';
import { ApiError, dateConditionsSql, parseBoolean, parseDateFilters } from '../src/index.js';

test('booleans accept true/false/1/0 and refuse the rest', (t) => {
  t.true(parseBoolean('true', 'x'));
  t.false(parseBoolean('0', 'x'));
  t.is(parseBoolean(undefined, 'x'), undefined);
  t.is(t.throws(() => parseBoolean('maybe', 'watermarked'), { instanceOf: ApiError })?.statusCode, 400);
});

test('a date means the whole day, a date-time the instant', (t) => {
  const params: unknown[] = [];
  const sql = dateConditionsSql('created', parseDateFilters({ date_lte: '2026-03-01', date_gt: '2026-02-01T10:00:00Z' }, 'date'), params);
  t.deepEqual(sql, ['created < $1', 'created >= $2']);
  t.is((params[0] as Date).toISOString(), '2026-03-02T00:00:00.000Z');
  t.is((params[1] as Date).toISOString(), '2026-02-01T10:00:00.001Z');
});

test('the exact date filter cannot be combined, and bad dates are 400', (t) => {
  t.throws(() => parseDateFilters({ date: '2026-01-01', date_lt: '2026-02-01' }, 'date'), { instanceOf: ApiError });
  t.throws(() => parseDateFilters({ date: '2026-02-30' }, 'date'), { instanceOf: ApiError });
  t.throws(() => parseDateFilters({ date_created__gte: 'yesterday' }, 'date_created', '__'), { instanceOf: ApiError });
  t.is(parseDateFilters({ date_created__gte: '2026-01-01' }, 'date_created', '__').length, 1);
});
