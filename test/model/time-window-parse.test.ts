/**
 * readTimeWindow: the one reader of since/until (and the zone they are read in) behind the CLI's
 * --since/--until/--tz, the HTTP API's since/until/tz and the viewer's routes. A refusal is a value
 * naming the field and the text given; each caller words it.
 */
import { describe, expect, it } from 'vitest';
import { readTimeWindow } from '../../src/model/time-window.js';

describe('readTimeWindow', () => {
  it('a date alone: from its first instant in the zone through its last, a month or a year too', () => {
    expect(readTimeWindow({ since: '2026-11-25', until: '2026-11-25' })).toEqual({
      ok: true,
      since: '2026-11-25T00:00:00.000Z',
      until: '2026-11-25T23:59:59.999Z',
      timeZone: 'UTC',
    });
    expect(readTimeWindow({ since: '2026-11-25', until: '2026-11-25', timeZone: 'Asia/Tokyo' })).toMatchObject({
      since: '2026-11-24T15:00:00.000Z',
      until: '2026-11-25T14:59:59.999Z',
    });
    expect(readTimeWindow({ until: '2026-02' })).toMatchObject({ ok: true, until: '2026-02-28T23:59:59.999Z' });
    expect(readTimeWindow({ since: '2026', timeZone: 'Asia/Tokyo' })).toMatchObject({ since: '2025-12-31T15:00:00.000Z' });
  });

  it('a time without an offset is the zone’s wall clock (UTC when none is named), its fraction kept', () => {
    expect(readTimeWindow({ since: '2026-11-25T14:00' })).toMatchObject({ since: '2026-11-25T14:00:00.000Z' });
    expect(readTimeWindow({ since: '2026-11-25 14:00', timeZone: 'Asia/Tokyo' })).toMatchObject({
      since: '2026-11-25T05:00:00.000Z',
    });
    expect(readTimeWindow({ until: '2026-11-25t14:00:00.250', timeZone: 'America/New_York' })).toMatchObject({
      until: '2026-11-25T19:00:00.250Z',
    });
  });

  it('a time with an offset, or Z, names its instant whatever the zone', () => {
    for (const timeZone of ['UTC', 'Asia/Tokyo', 'America/Los_Angeles']) {
      expect(readTimeWindow({ since: '2026-11-25T14:00:00+02:00', timeZone })).toMatchObject({
        since: '2026-11-25T12:00:00.000Z',
      });
      expect(readTimeWindow({ since: '2026-11-25T14:00:00-0530', timeZone })).toMatchObject({
        since: '2026-11-25T19:30:00.000Z',
      });
      expect(readTimeWindow({ until: '2026-11-25T14:00Z', timeZone })).toMatchObject({ until: '2026-11-25T14:00:00.000Z' });
      expect(readTimeWindow({ until: '2026-11-25t14:00z', timeZone })).toMatchObject({ until: '2026-11-25T14:00:00.000Z' });
    }
  });

  it('across a spring gap: a skipped time lands as far past the jump as it lies past the gap’s start; the day has 23 hours', () => {
    // Berlin, 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00Z), so 02:30 is not on its clock
    const gap = readTimeWindow({ since: '2026-03-29T02:30', until: '2026-03-29T03:30', timeZone: 'Europe/Berlin' });
    expect(gap).toMatchObject({ ok: true, since: '2026-03-29T01:30:00.000Z', until: '2026-03-29T01:30:00.000Z' });
    expect(readTimeWindow({ since: '2026-03-29', until: '2026-03-29', timeZone: 'Europe/Berlin' })).toMatchObject({
      since: '2026-03-28T23:00:00.000Z',
      until: '2026-03-29T21:59:59.999Z',
    });
    // Havana, 2026-03-08: the clock goes from 00:00 to 01:00, so the day starts at 01:00 (05:00Z)
    expect(readTimeWindow({ since: '2026-03-08', until: '2026-03-07', timeZone: 'America/Havana' })).toMatchObject({
      reason: 'since-after-until',
      since: '2026-03-08T05:00:00.000Z',
      until: '2026-03-08T04:59:59.999Z',
    });
  });

  it('across an autumn overlap: a time the clock reads twice is the earlier; the day has 25 hours', () => {
    // Berlin, 2026-10-25: 03:00 CEST becomes 02:00 CET (01:00Z), so 02:30 is 00:30Z and 01:30Z
    expect(readTimeWindow({ since: '2026-10-25T02:30', timeZone: 'Europe/Berlin' })).toMatchObject({
      since: '2026-10-25T00:30:00.000Z',
    });
    expect(readTimeWindow({ since: '2026-10-25', until: '2026-10-25', timeZone: 'Europe/Berlin' })).toMatchObject({
      since: '2026-10-24T22:00:00.000Z',
      until: '2026-10-25T22:59:59.999Z',
    });
  });

  it('an unknown zone is refused, before the times', () => {
    expect(readTimeWindow({ since: '2026-11-25', timeZone: 'Mars/Olympus' })).toEqual({
      ok: false,
      reason: 'unknown-zone',
      field: 'tz',
      value: 'Mars/Olympus',
    });
    expect(readTimeWindow({ since: 'yesterday', timeZone: '' })).toMatchObject({ reason: 'unknown-zone', value: '' });
    // nothing to read is still a window of no bounds in a known zone
    expect(readTimeWindow({})).toEqual({ ok: true, timeZone: 'UTC' });
    expect(readTimeWindow({ timeZone: 'Europe/Berlin' })).toEqual({ ok: true, timeZone: 'Europe/Berlin' });
  });

  it('an until before the since is refused with both texts and the instants they name', () => {
    expect(readTimeWindow({ since: '2026-11-26', until: '2026-11-25T23:00', timeZone: 'Europe/Berlin' })).toEqual({
      ok: false,
      reason: 'since-after-until',
      field: 'since',
      value: '2026-11-26',
      untilValue: '2026-11-25T23:00',
      since: '2026-11-25T23:00:00.000Z',
      until: '2026-11-25T22:00:00.000Z',
    });
    // the same instant is a window of one instant
    expect(readTimeWindow({ since: '2026-11-25T23:00', until: '2026-11-26T00:00+01:00', timeZone: 'UTC' }).ok).toBe(true);
    // compared as instants: 9999-12-31 in New York ends in the year 10000 (+010000-… as text, before "2026" as text)
    expect(readTimeWindow({ since: '2026', until: '9999-12-31', timeZone: 'America/New_York' })).toMatchObject({
      ok: true,
      until: '+010000-01-01T04:59:59.999Z',
    });
  });

  it('blanks around a time are not part of it', () => {
    expect(readTimeWindow({ since: ' 2026-11 ', until: '\t2026-11-25T14:00:00+02:00 ' })).toMatchObject({
      ok: true,
      since: '2026-11-01T00:00:00.000Z',
      until: '2026-11-25T12:00:00.000Z',
    });
  });

  it.each([
    '',
    '  ',
    'yesterday',
    '2026-02-30',
    '2026-02-29',
    '2026-00',
    '2026/11/25',
    '2026-1-5',
    '2026-11-25z',
    '2026-11-25T24:00',
    '2026-11-25T14:60',
  ])('%j names no time: refused, naming the field and the text as given', (text) => {
    expect(readTimeWindow({ since: text })).toEqual({ ok: false, reason: 'not-a-time', field: 'since', value: text });
    expect(readTimeWindow({ since: '2026-11-25', until: text })).toEqual({
      ok: false,
      reason: 'not-a-time',
      field: 'until',
      value: text,
    });
    // since is read first
    expect(readTimeWindow({ since: text, until: 'soon' })).toMatchObject({ field: 'since', value: text });
  });
});
