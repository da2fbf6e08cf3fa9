import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  businessDay,
  dateRange,
  dateTimeFormat,
  dayBounds,
  dayStart,
  daysBetween,
  isDate,
  isTimeZone,
  offsetMs,
  possibleInstants,
  wallClock,
  weekdayOf,
  zonedInstant,
} from '../../../server/shared/zoned-time.js';

const AMS = 'Europe/Amsterdam';
/** +10:30 in winter, +11:00 in summer: a DST step of half an hour. */
const LORD_HOWE = 'Australia/Lord_Howe';
/** +9:30 in winter, +10:30 in summer: a half-hour offset with a one-hour DST step. */
const ADELAIDE = 'Australia/Adelaide';
const iso = (d: Date | null) => d?.toISOString() ?? null;
const HOUR = 3_600_000;

describe('calendar dates', () => {
  it('add, count, list and name days across months, leap days and years', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2);
    expect(daysBetween('2026-03-30', '2026-03-28')).toBe(-2);
    expect(dateRange('2026-10-24', '2026-10-26')).toEqual(['2026-10-24', '2026-10-25', '2026-10-26']);
    expect(dateRange('2026-10-26', '2026-10-24')).toEqual([]);
    expect(weekdayOf('2026-11-20')).toBe('fri');
    expect(weekdayOf('2026-11-23')).toBe('mon');
    expect(weekdayOf('2026-11-22')).toBe('sun');
    // Years below 100 are years, not 1900 + n (Date.UTC's old habit).
    expect(addDays('0050-12-31', 1)).toBe('0051-01-01');
    expect(daysBetween('0050-01-01', '1950-01-01')).toBe(1900 * 365 + 460); // 460 leap days
    expect(iso(dayStart('9999-12-31', AMS))).toBe('9999-12-30T23:00:00.000Z');
  });

  it.each([
    ['2026-02-28', true],
    ['2028-02-29', true],
    ['2026-02-29', false],
    ['2026-04-31', false],
    ['2026-13-01', false],
    ['2026-1-01', false],
    ['20260101', false],
    ['', false],
  ])('isDate(%j) is %s', (s, ok) => {
    expect(isDate(s)).toBe(ok);
  });
});

describe('formatters and zones', () => {
  it('one cached formatter per locale and options, whatever the order of the options', () => {
    const a = dateTimeFormat('nl-NL', { timeZone: AMS, hour: '2-digit', minute: '2-digit' });
    expect(dateTimeFormat('nl-NL', { minute: '2-digit', hour: '2-digit', timeZone: AMS })).toBe(a);
    expect(dateTimeFormat('nl-NL', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit' })).not.toBe(a);
    expect(a.format(Date.parse('2026-07-01T10:05:00Z'))).toBe('12:05');
    expect(dateTimeFormat('nl-NL', { timeZone: AMS, weekday: 'short', day: 'numeric', month: 'short' }).format(Date.parse('2026-11-20T06:00:00Z'))).toBe('vr 20 nov');
  });

  it('knows IANA zones and refuses the rest', () => {
    for (const z of [AMS, 'UTC', LORD_HOWE, 'Asia/Kathmandu']) expect(isTimeZone(z)).toBe(true);
    for (const z of ['Europe/Atlantis', 'Mars/Olympus', '', '+99:00']) expect(isTimeZone(z)).toBe(false);
    expect(() => dateTimeFormat('nl-NL', { timeZone: 'Europe/Atlantis' })).toThrow(RangeError);
  });

  it('offsets: Amsterdam 1 h / 2 h, Lord Howe 10½ h / 11 h, Kathmandu 5¾ h', () => {
    expect(offsetMs(new Date('2026-01-15T12:00:00Z'), AMS)).toBe(HOUR);
    expect(offsetMs(new Date('2026-07-15T12:00:00Z'), AMS)).toBe(2 * HOUR);
    expect(offsetMs(new Date('2026-07-15T12:00:00Z'), LORD_HOWE)).toBe(10.5 * HOUR);
    expect(offsetMs(new Date('2026-01-15T12:00:00Z'), LORD_HOWE)).toBe(11 * HOUR);
    expect(offsetMs(new Date('2026-01-15T12:00:00Z'), 'Asia/Kathmandu')).toBe(5.75 * HOUR);
  });
});

describe('zoned instants across DST (documented choice: Temporal’s disambiguation, compatible by default)', () => {
  it('Amsterdam, spring: 02:30 does not exist', () => {
    expect(possibleInstants('2026-03-29', '02:30', AMS)).toEqual([]);
    expect(iso(zonedInstant('2026-03-29', '02:30', AMS))).toBe('2026-03-29T01:30:00.000Z'); // 03:30 summer time
    expect(iso(zonedInstant('2026-03-29', '02:30', AMS, 'later'))).toBe('2026-03-29T01:30:00.000Z');
    expect(iso(zonedInstant('2026-03-29', '02:30', AMS, 'earlier'))).toBe('2026-03-29T00:30:00.000Z'); // 01:30 winter time
    expect(zonedInstant('2026-03-29', '02:30', AMS, 'reject')).toBeNull();
    expect(iso(zonedInstant('2026-03-29', '03:00', AMS))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(zonedInstant('2026-03-29', '01:59', AMS))).toBe('2026-03-29T00:59:00.000Z');
  });

  it('Amsterdam, autumn: 02:30 exists twice', () => {
    expect(possibleInstants('2026-10-25', '02:30', AMS).map(iso)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']);
    expect(iso(zonedInstant('2026-10-25', '02:30', AMS))).toBe('2026-10-25T00:30:00.000Z'); // the first: summer time
    expect(iso(zonedInstant('2026-10-25', '02:30', AMS, 'earlier'))).toBe('2026-10-25T00:30:00.000Z');
    expect(iso(zonedInstant('2026-10-25', '02:30', AMS, 'later'))).toBe('2026-10-25T01:30:00.000Z'); // winter time
    expect(zonedInstant('2026-10-25', '02:30', AMS, 'reject')).toBeNull();
  });

  it('Lord Howe: a half-hour gap (02:00 → 02:30) and a half-hour overlap (02:00 → 01:30)', () => {
    expect(possibleInstants('2026-10-04', '02:15', LORD_HOWE)).toEqual([]);
    expect(iso(zonedInstant('2026-10-04', '02:15', LORD_HOWE))).toBe('2026-10-03T15:45:00.000Z'); // 02:45 at +11
    expect(iso(zonedInstant('2026-10-04', '02:15', LORD_HOWE, 'earlier'))).toBe('2026-10-03T15:15:00.000Z'); // 01:45 at +10:30
    expect(possibleInstants('2026-04-05', '01:45', LORD_HOWE).map(iso)).toEqual(['2026-04-04T14:45:00.000Z', '2026-04-04T15:15:00.000Z']);
  });

  it('New York (behind UTC): a skipped 02:30 moves forward, a repeated 01:30 is the first', () => {
    expect(iso(zonedInstant('2026-03-08', '02:30', 'America/New_York'))).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT
    expect(iso(zonedInstant('2026-11-01', '01:30', 'America/New_York'))).toBe('2026-11-01T05:30:00.000Z'); // 01:30 EDT
    expect(iso(zonedInstant('2026-11-01', '01:30', 'America/New_York', 'later'))).toBe('2026-11-01T06:30:00.000Z'); // 01:30 EST
  });

  it('wall clock of an instant', () => {
    expect(wallClock(new Date('2026-03-29T01:00:00Z'), AMS)).toEqual({ date: '2026-03-29', time: '03:00' });
    expect(wallClock(new Date('2026-10-25T01:30:00Z'), AMS)).toEqual({ date: '2026-10-25', time: '02:30' });
    expect(wallClock(Date.parse('2026-11-20T23:30:00Z'), AMS)).toEqual({ date: '2026-11-21', time: '00:30' });
    expect(wallClock(Date.parse('2026-11-20T20:00:00Z'), 'Asia/Kathmandu')).toEqual({ date: '2026-11-21', time: '01:45' });
    // A year of three digits is written differently by Intl: the formatter's parts are read then.
    expect(wallClock(Date.UTC(950, 5, 1, 12, 7), 'UTC')).toEqual({ date: '0950-06-01', time: '12:07' });
  });
});

describe('business days', () => {
  it('day bounds: 23 and 25 hours in Amsterdam, 23½ and 24½ on Lord Howe', () => {
    const hours = (d: string, z: string) => {
      const { start, end } = dayBounds(d, z);
      return (end.getTime() - start.getTime()) / HOUR;
    };
    expect(hours('2026-03-29', AMS)).toBe(23);
    expect(hours('2026-10-25', AMS)).toBe(25);
    expect(hours('2026-11-20', AMS)).toBe(24);
    expect(hours('2026-10-04', LORD_HOWE)).toBe(23.5);
    expect(hours('2026-04-05', LORD_HOWE)).toBe(24.5);
    expect(hours('2026-10-04', ADELAIDE)).toBe(23);
    expect(iso(dayStart('2026-03-29', AMS))).toBe('2026-03-28T23:00:00.000Z');
    expect(iso(dayStart('2026-03-30', AMS))).toBe('2026-03-29T22:00:00.000Z');
  });

  it('a day that begins at 05:00 (business_day_starts_at): 01:30 on Saturday belongs to Friday', () => {
    expect(businessDay(new Date('2026-11-21T00:30:00Z'), AMS)).toBe('2026-11-21');
    expect(businessDay(new Date('2026-11-21T00:30:00Z'), AMS, '05:00')).toBe('2026-11-20');
    expect(businessDay(new Date('2026-11-21T03:59:59Z'), AMS, '05:00')).toBe('2026-11-20');
    expect(businessDay(new Date('2026-11-21T04:00:00Z'), AMS, '05:00')).toBe('2026-11-21');
    expect(iso(dayStart('2026-11-21', AMS, '05:00'))).toBe('2026-11-21T04:00:00.000Z');
    // The night of the autumn change is 25 hours long from 05:00 to 05:00 as well.
    const { start, end } = dayBounds('2026-10-24', AMS, '05:00');
    expect((end.getTime() - start.getTime()) / HOUR).toBe(25);
  });

  it('businessDay keeps its last day per zone and start (session 13): the same answers as working it out afresh, instant by instant across DST days, forwards and backwards, at every bound', () => {
    // Afresh: the local date, or the one before while the local time is before the start.
    const fresh = (t: number, zone: string, startsAt: string) => {
      const local = wallClock(t, zone).date;
      return t < dayStart(local, zone, startsAt).getTime() ? addDays(local, -1) : local;
    };
    const cases: Array<[string, string, string]> = [
      [AMS, '2026-03-27', '00:00'], [AMS, '2026-10-23', '05:00'], ['America/Sao_Paulo', '2018-11-02', '00:00'], [LORD_HOWE, '2026-04-03', '02:30'],
    ];
    for (const [zone, from, startsAt] of cases) {
      const t0 = dayStart(from, zone).getTime();
      const instants: number[] = [];
      for (let t = t0; t < t0 + 4 * 24 * HOUR; t += 7 * 60_000 + 13) instants.push(t);
      // Every bound of these days and the millisecond before it.
      for (let d = addDays(from, -1); d <= addDays(from, 5); d = addDays(d, 1)) {
        const s0 = dayStart(d, zone, startsAt).getTime();
        instants.push(s0 - 1, s0);
      }
      for (const order of [instants, [...instants].reverse(), [...instants].sort((a, b) => (a % 1000) - (b % 1000))]) {
        for (const t of order) expect(businessDay(t, zone, startsAt), `${zone} ${startsAt} ${new Date(t).toISOString()}`).toBe(fresh(t, zone, startsAt));
      }
    }
  });

  it('a midnight that does not exist (São Paulo, 2018-11-04: 00:00 → 01:00): the day begins at 01:00', () => {
    expect(iso(dayStart('2018-11-04', 'America/Sao_Paulo'))).toBe('2018-11-04T03:00:00.000Z');
    expect(businessDay(new Date('2018-11-04T02:59:59Z'), 'America/Sao_Paulo')).toBe('2018-11-03');
    expect(businessDay(new Date('2018-11-04T03:00:00Z'), 'America/Sao_Paulo')).toBe('2018-11-04');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties, for DST days in Amsterdam and in zones with half- and three-quarter-hour offsets.

const ZONES = [AMS, LORD_HOWE, ADELAIDE, 'Asia/Kathmandu', 'America/New_York', 'America/Sao_Paulo'];
const RUNS = { numRuns: 300 };

/** The days 2016-2030 whose length is not 24 hours, per zone: the DST days, where the bugs live. */
const changeDays = new Map(
  ZONES.map((z) => {
    const days: string[] = [];
    for (let d = '2016-01-01'; d < '2031-01-01'; d = addDays(d, 1)) {
      const { start, end } = dayBounds(d, z);
      if (end.getTime() - start.getTime() !== 24 * HOUR) days.push(d);
    }
    return [z, days] as const;
  }),
);

const anyDay = fc.integer({ min: 0, max: 15 * 366 }).map((n) => addDays('2016-01-01', n));
const zoneAndDay = fc.constantFrom(...ZONES).chain((zone) => {
  const days = changeDays.get(zone)!;
  return fc.tuple(fc.constant(zone), days.length > 0 ? fc.oneof(fc.constantFrom(...days), anyDay) : anyDay);
});
// Minutes of the day, half of them in the small hours where the changes are.
const minuteOfDay = fc.oneof(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 0, max: 240 }), fc.integer({ min: 1380, max: 1439 }));
const hhmmOf = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
const instantIn = (zone: string, day: string, minute: number) => dayStart(day, zone).getTime() + minute * 60_000 + (minute % 7) * 1_013;

describe('properties', () => {
  it('possibleInstants are exactly the instants whose wall clock shows that date and time (brute force over ±15 h)', () => {
    fc.assert(
      fc.property(zoneAndDay, minuteOfDay, ([zone, day], minute) => {
        const time = hhmmOf(minute);
        const wall = Date.parse(`${day}T${time}:00Z`);
        const expected: string[] = [];
        // Every offset in these zones is a multiple of 15 minutes: stepping by 15 minutes from the wall time meets every candidate.
        for (let t = wall - 15 * HOUR; t <= wall + 15 * HOUR; t += 15 * 60_000) {
          const w = wallClock(t, zone);
          if (w.date === day && w.time === time) expected.push(new Date(t).toISOString());
        }
        expect(possibleInstants(day, time, zone).map(iso)).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('zonedInstant: one reading is that reading; two: compatible/earlier take the first, later the second; none: earlier and later straddle the gap', () => {
    fc.assert(
      fc.property(zoneAndDay, minuteOfDay, ([zone, day], minute) => {
        const time = hhmmOf(minute);
        const found = possibleInstants(day, time, zone).map((d) => d.getTime());
        const at = (d: 'compatible' | 'earlier' | 'later') => zonedInstant(day, time, zone, d).getTime();
        if (found.length === 1) {
          for (const d of ['compatible', 'earlier', 'later'] as const) expect(at(d)).toBe(found[0]);
          expect(zonedInstant(day, time, zone, 'reject')?.getTime()).toBe(found[0]);
        } else if (found.length === 2) {
          expect(at('compatible')).toBe(found[0]);
          expect(at('earlier')).toBe(found[0]);
          expect(at('later')).toBe(found[1]);
          expect(zonedInstant(day, time, zone, 'reject')).toBeNull();
        } else {
          expect(found).toEqual([]);
          const gap = at('later') - at('earlier');
          expect(gap).toBeGreaterThan(0);
          expect(at('compatible')).toBe(at('later'));
          // 'later' reads the wall time with the offset before the jump: it shows the time plus the gap.
          const wall = Date.parse(`${day}T${time}:00Z`);
          expect(Date.parse(`${wallClock(at('later'), zone).date}T${wallClock(at('later'), zone).time}:00Z`)).toBe(wall + gap);
          expect(Date.parse(`${wallClock(at('earlier'), zone).date}T${wallClock(at('earlier'), zone).time}:00Z`)).toBe(wall - gap);
          expect(zonedInstant(day, time, zone, 'reject')).toBeNull();
        }
      }),
      RUNS,
    );
  });

  it('an instant is among the readings of its own wall clock', () => {
    fc.assert(
      fc.property(zoneAndDay, minuteOfDay, ([zone, day], minute) => {
        const t = instantIn(zone, day, minute);
        const { date, time } = wallClock(t, zone);
        const minuteStart = t - (t % 60_000);
        expect(possibleInstants(date, time, zone).map((d) => d.getTime())).toContain(minuteStart);
      }),
      RUNS,
    );
  });

  it('businessDay(t) = d exactly when dayStart(d) <= t < dayStart(d + 1), for a day from midnight and from 02:30, 05:00 or 06:15', () => {
    fc.assert(
      fc.property(zoneAndDay, fc.integer({ min: -180, max: 1620 }), fc.constantFrom('00:00', '02:30', '05:00', '06:15'), ([zone, day], minute, startsAt) => {
        const t = instantIn(zone, day, minute);
        const d = businessDay(t, zone, startsAt);
        const { start, end } = dayBounds(d, zone, startsAt);
        expect(start.getTime()).toBeLessThanOrEqual(t);
        expect(t).toBeLessThan(end.getTime());
        if (startsAt === '00:00') expect(d).toBe(wallClock(t, zone).date);
      }),
      RUNS,
    );
  });

  it('consecutive days tile time: each ends where the next begins, 22 to 26 hours long', () => {
    fc.assert(
      fc.property(zoneAndDay, fc.constantFrom('00:00', '05:00'), ([zone, day], startsAt) => {
        const a = dayBounds(day, zone, startsAt);
        const b = dayBounds(addDays(day, 1), zone, startsAt);
        expect(a.end.getTime()).toBe(b.start.getTime());
        const hours = (a.end.getTime() - a.start.getTime()) / HOUR;
        expect(hours).toBeGreaterThanOrEqual(22);
        expect(hours).toBeLessThanOrEqual(26);
      }),
      RUNS,
    );
  });
});
