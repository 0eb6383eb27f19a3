//! FILETIME, the time format of the 7z header (and of Windows): 100 ns
//! ticks since 1601-01-01 UTC. The reader and the writer both convert
//! through here.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// FILETIME ticks (100 ns) between 1601-01-01 and 1970-01-01.
const FILETIME_UNIX_EPOCH: u64 = 116_444_736_000_000_000;

/// Converts a FILETIME to a `SystemTime`.
pub fn filetime_to_system_time(ft: u64) -> SystemTime {
    if ft >= FILETIME_UNIX_EPOCH {
        let t = ft - FILETIME_UNIX_EPOCH;
        UNIX_EPOCH + Duration::new(t / 10_000_000, (t % 10_000_000) as u32 * 100)
    } else {
        let t = FILETIME_UNIX_EPOCH - ft;
        UNIX_EPOCH - Duration::new(t / 10_000_000, (t % 10_000_000) as u32 * 100)
    }
}

/// A `SystemTime` as a FILETIME (100 ns ticks since 1601 UTC); times
/// before 1601 become 0.
pub fn system_time_to_filetime(t: SystemTime) -> u64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => FILETIME_UNIX_EPOCH
            .saturating_add(d.as_secs().saturating_mul(10_000_000))
            .saturating_add(u64::from(d.subsec_nanos() / 100)),
        Err(e) => {
            let d = e.duration();
            let ticks = d
                .as_secs()
                .saturating_mul(10_000_000)
                .saturating_add(u64::from(d.subsec_nanos()).div_ceil(100));
            FILETIME_UNIX_EPOCH.saturating_sub(ticks)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetimes_become_system_times_on_both_sides_of_1970() {
        assert_eq!(filetime_to_system_time(FILETIME_UNIX_EPOCH), UNIX_EPOCH);
        assert_eq!(
            filetime_to_system_time(FILETIME_UNIX_EPOCH + 10_000_001),
            UNIX_EPOCH + Duration::new(1, 100)
        );
        assert_eq!(
            filetime_to_system_time(FILETIME_UNIX_EPOCH - 10_000_000),
            UNIX_EPOCH - Duration::from_secs(1)
        );
    }

    #[test]
    fn system_times_become_filetimes_on_both_sides_of_1970() {
        assert_eq!(system_time_to_filetime(UNIX_EPOCH), FILETIME_UNIX_EPOCH);
        assert_eq!(
            system_time_to_filetime(UNIX_EPOCH + Duration::new(1, 250)),
            FILETIME_UNIX_EPOCH + 10_000_002
        );
        assert_eq!(
            system_time_to_filetime(UNIX_EPOCH - Duration::from_secs(1)),
            FILETIME_UNIX_EPOCH - 10_000_000
        );
        assert_eq!(
            system_time_to_filetime(UNIX_EPOCH - Duration::from_secs(20_000_000_000)),
            0
        );
        for ft in [FILETIME_UNIX_EPOCH + 123_456_789, 5_000_000] {
            assert_eq!(system_time_to_filetime(filetime_to_system_time(ft)), ft);
        }
    }
}
