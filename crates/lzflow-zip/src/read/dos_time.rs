//! MS-DOS date and time (APPNOTE 4.4.6): two 16-bit words holding the
//! writer's local time to two-second precision, years 1980 to 2107. The
//! zone is not recorded, so readers take it as UTC.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// An MS-DOS date and time as stored in a header.
///
/// `date`: bits 15-9 years since 1980, 8-5 month (1-12), 4-0 day (1-31);
/// `time`: bits 15-11 hour, 10-5 minute, 4-0 seconds / 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DosDateTime {
    /// The date word.
    pub date: u16,
    /// The time word.
    pub time: u16,
}

/// Days before each month in a common year.
const DAYS_BEFORE_MONTH: [u16; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

fn is_leap(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// Leap years in 1..=`year`.
fn leap_years_through(year: u64) -> u64 {
    year / 4 - year / 100 + year / 400
}

impl DosDateTime {
    /// The date and time from the two header words.
    pub const fn new(date: u16, time: u16) -> Self {
        DosDateTime { date, time }
    }

    /// The year, 1980 to 2107.
    pub const fn year(self) -> u16 {
        1980 + (self.date >> 9)
    }

    /// The month as stored: 1 to 12 when valid.
    pub const fn month(self) -> u8 {
        ((self.date >> 5) & 0x0F) as u8
    }

    /// The day of the month as stored: 1 to 31 when valid.
    pub const fn day(self) -> u8 {
        (self.date & 0x1F) as u8
    }

    /// The hour as stored: 0 to 23 when valid.
    pub const fn hour(self) -> u8 {
        (self.time >> 11) as u8
    }

    /// The minute as stored: 0 to 59 when valid.
    pub const fn minute(self) -> u8 {
        ((self.time >> 5) & 0x3F) as u8
    }

    /// The second (always even) as stored: 0 to 58 when valid.
    pub const fn second(self) -> u8 {
        ((self.time & 0x1F) * 2) as u8
    }

    /// Whether the words name a real date and time.
    pub fn is_valid(self) -> bool {
        self.days_since_epoch().is_some()
            && self.hour() < 24
            && self.minute() < 60
            && self.second() < 60
    }

    /// Days from 1970-01-01 to the date, if the date exists.
    fn days_since_epoch(self) -> Option<u64> {
        let year = u64::from(self.year());
        let month = usize::from(self.month());
        let day = u64::from(self.day());
        let leap = is_leap(year);
        let month_len = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => return None,
        };
        if day == 0 || day > month_len {
            return None;
        }
        let before = u64::from(*DAYS_BEFORE_MONTH.get(month.checked_sub(1)?)?);
        let leap_day = u64::from(leap && month > 2);
        let leaps = leap_years_through(year - 1) - leap_years_through(1969);
        Some((year - 1970) * 365 + leaps + before + leap_day + day - 1)
    }

    /// The MS-DOS words of `t` in UTC (the time the extended timestamp
    /// gives exactly), with the seconds rounded down to even; times
    /// before 1980 or after 2107 are clamped to the range's ends.
    pub fn from_system_time(t: SystemTime) -> Self {
        const MIN: DosDateTime = DosDateTime::new(0x21, 0); // 1980-01-01 00:00:00
        const MAX: DosDateTime = DosDateTime::new(0xFF9F, 0xBF7D); // 2107-12-31 23:59:58
        let Ok(since) = t.duration_since(UNIX_EPOCH) else {
            return MIN;
        };
        let secs = since.as_secs();
        let (days, rest) = (secs / 86_400, secs % 86_400);
        // Days to a civil date: count in 400-year eras from 0000-03-01 so
        // that the leap day ends each year.
        let z = days + 719_468;
        let era = z / 146_097;
        let doe = z % 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + u64::from(month <= 2);
        if year < 1980 {
            return MIN;
        }
        if year > 2107 {
            return MAX;
        }
        let date = ((year - 1980) << 9) | (month << 5) | day;
        let (h, m, s) = (rest / 3600, rest / 60 % 60, rest % 60);
        let time = (h << 11) | (m << 5) | (s / 2);
        DosDateTime::new(date as u16, time as u16)
    }

    /// The instant the words name, read as UTC (the format has no zone;
    /// the writer's local time is unknown). `None` for an impossible date
    /// or time, such as month 0 or 25 o'clock.
    pub fn to_system_time(self) -> Option<SystemTime> {
        if !self.is_valid() {
            return None;
        }
        let seconds = self.days_since_epoch()? * 86_400
            + u64::from(self.hour()) * 3600
            + u64::from(self.minute()) * 60
            + u64::from(self.second());
        UNIX_EPOCH.checked_add(Duration::from_secs(seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_times_round_trip_to_even_seconds() {
        for secs in [315_532_800u64, 951_782_400, 1_683_357_291, 4_354_819_198] {
            let t = UNIX_EPOCH + Duration::from_secs(secs);
            let dos = DosDateTime::from_system_time(t);
            assert!(dos.is_valid(), "{secs}");
            assert_eq!(
                dos.to_system_time(),
                Some(UNIX_EPOCH + Duration::from_secs(secs / 2 * 2)),
                "{secs}"
            );
        }
        assert_eq!(
            DosDateTime::from_system_time(UNIX_EPOCH),
            DosDateTime::new(0x21, 0)
        );
    }

    fn words(y: u16, mo: u16, d: u16, h: u16, mi: u16, s: u16) -> DosDateTime {
        DosDateTime::new(
            ((y - 1980) << 9) | (mo << 5) | d,
            (h << 11) | (mi << 5) | (s / 2),
        )
    }

    fn secs(t: SystemTime) -> u64 {
        t.duration_since(UNIX_EPOCH).unwrap().as_secs()
    }

    #[test]
    fn fields_and_known_instants() {
        let t = words(2023, 5, 6, 7, 8, 10);
        assert_eq!(
            (
                t.year(),
                t.month(),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            ),
            (2023, 5, 6, 7, 8, 10)
        );
        // date -u -d 2023-05-06T07:08:10 +%s
        assert_eq!(secs(t.to_system_time().unwrap()), 1_683_356_890);
        assert_eq!(
            secs(words(1980, 1, 1, 0, 0, 0).to_system_time().unwrap()),
            315_532_800
        );
        assert_eq!(
            secs(words(2024, 2, 29, 12, 34, 56).to_system_time().unwrap()),
            1_709_210_096
        );
        assert_eq!(
            secs(words(2040, 2, 29, 23, 59, 58).to_system_time().unwrap()),
            2_214_172_798
        );
        // The last instant the format can hold.
        let last = DosDateTime::new(0xFF9F, 0xBF7D);
        assert_eq!(secs(last.to_system_time().unwrap()), 4_354_819_198);
    }

    #[test]
    fn impossible_dates_are_none() {
        assert_eq!(DosDateTime::new(0, 0).to_system_time(), None); // month 0, day 0
        assert_eq!(words(2023, 2, 29, 0, 0, 0).to_system_time(), None);
        assert_eq!(words(2100, 2, 29, 0, 0, 0).to_system_time(), None);
        assert!(words(2000, 2, 29, 0, 0, 0).to_system_time().is_some());
        assert_eq!(words(2023, 4, 31, 0, 0, 0).to_system_time(), None);
        assert_eq!(words(2023, 13, 1, 0, 0, 0).to_system_time(), None);
        assert_eq!(words(2023, 1, 1, 24, 0, 0).to_system_time(), None);
        assert_eq!(words(2023, 1, 1, 0, 60, 0).to_system_time(), None);
        assert_eq!(words(2023, 1, 1, 0, 0, 60).to_system_time(), None);
        for date in 0..=u16::MAX {
            for time in [0, 0xBF7D, 0xFFFF] {
                let _ = DosDateTime::new(date, time).to_system_time();
            }
        }
    }
}
