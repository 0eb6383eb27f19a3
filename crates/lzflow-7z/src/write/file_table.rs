//! The writer's file records, stored by column: every name in one buffer,
//! the fixed-size fields in flat vectors. The header is the only place the
//! records go, and it stores them by property (all names, then all times
//! of a kind, then all attributes), so columns are all the writer needs:
//! an entry costs its name and a few bytes of fields, and no allocation
//! of its own.

/// The entry has no data stream (a directory or an empty file).
const EMPTY_STREAM: u8 = 1;
/// An empty stream that is an empty file, not a directory.
const EMPTY_FILE: u8 = 1 << 1;
/// First of the three "time defined" bits (ctime, atime, mtime).
const HAS_TIME: u8 = 1 << 2;
/// Attributes are defined.
const HAS_ATTRIBUTES: u8 = 1 << 5;

/// Which of an entry's times: the order of [`Fields::times`] and of the
/// header's time properties.
pub(crate) const CTIME: usize = 0;
/// Access time.
pub(crate) const ATIME: usize = 1;
/// Modification time.
pub(crate) const MTIME: usize = 2;

/// The fixed-size fields of one entry.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Fields {
    /// No data stream.
    pub(crate) empty_stream: bool,
    /// An empty stream that is an empty file.
    pub(crate) empty_file: bool,
    /// Creation, access and modification time as FILETIMEs.
    pub(crate) times: [Option<u64>; 3],
    /// Windows attributes (unix mode in the high half).
    pub(crate) attributes: Option<u32>,
}

/// The records of the entries added so far.
#[derive(Debug, Default)]
pub(crate) struct FileTable {
    /// Every name, each followed by a NUL (names cannot contain one): the
    /// header's name list, still in UTF-8.
    names: String,
    /// UTF-16 code units in `names`, NULs included.
    name_units: u64,
    /// Per entry: the flag bits above.
    flags: Vec<u8>,
    /// The defined values of each time, in entry order.
    times: [Vec<u64>; 3],
    /// The defined attributes, in entry order.
    attributes: Vec<u32>,
}

impl FileTable {
    /// Number of entries recorded.
    pub(crate) fn len(&self) -> usize {
        self.flags.len()
    }

    /// True when no entry is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// Appends the name of the next entry and returns where it starts. The
    /// entry is recorded by [`push`](Self::push); until then
    /// [`drop_name`](Self::drop_name) takes the name back. `name` must not
    /// contain NUL.
    pub(crate) fn push_name(&mut self, name: &str) -> usize {
        debug_assert!(!name.contains('\0'));
        let at = self.names.len();
        self.names.push_str(name);
        self.names.push('\0');
        self.name_units += name.encode_utf16().count() as u64 + 1;
        at
    }

    /// The name appended last, starting at `at`.
    pub(crate) fn pending_name(&self, at: usize) -> &str {
        &self.names[at..self.names.len() - 1]
    }

    /// Takes back the name appended last, starting at `at`.
    pub(crate) fn drop_name(&mut self, at: usize) {
        let units = self.names[at..].encode_utf16().count() as u64;
        self.name_units -= units;
        self.names.truncate(at);
    }

    /// Records the fields of the entry whose name was appended last.
    pub(crate) fn push(&mut self, f: Fields) {
        let mut flags = 0;
        if f.empty_stream {
            flags |= EMPTY_STREAM;
            if f.empty_file {
                flags |= EMPTY_FILE;
            }
        }
        for (i, t) in f.times.iter().enumerate() {
            if let Some(t) = *t {
                flags |= HAS_TIME << i;
                self.times[i].push(t);
            }
        }
        if let Some(a) = f.attributes {
            flags |= HAS_ATTRIBUTES;
            self.attributes.push(a);
        }
        self.flags.push(flags);
    }

    /// Appends a name and records its fields.
    pub(crate) fn push_entry(&mut self, name: &str, f: Fields) {
        self.push_name(name);
        self.push(f);
    }

    /// Every name, each followed by a NUL, in entry order.
    pub(crate) fn names(&self) -> &str {
        &self.names
    }

    /// The size of [`names`](Self::names) in UTF-16 code units.
    pub(crate) fn name_units(&self) -> u64 {
        self.name_units
    }

    fn flag(&self, bit: u8) -> impl Iterator<Item = bool> + Clone + '_ {
        self.flags.iter().map(move |f| f & bit != 0)
    }

    /// Per entry: no data stream.
    pub(crate) fn empty_stream(&self) -> impl Iterator<Item = bool> + Clone + '_ {
        self.flag(EMPTY_STREAM)
    }

    /// Per entry without a data stream: an empty file (not a directory).
    pub(crate) fn empty_file(&self) -> impl Iterator<Item = bool> + Clone + '_ {
        self.flags
            .iter()
            .filter(|f| *f & EMPTY_STREAM != 0)
            .map(|f| f & EMPTY_FILE != 0)
    }

    /// Per entry: time `which` ([`CTIME`], [`ATIME`], [`MTIME`]) is defined.
    pub(crate) fn time_defined(&self, which: usize) -> impl Iterator<Item = bool> + Clone + '_ {
        self.flag(HAS_TIME << which)
    }

    /// The defined values of time `which`, in entry order.
    pub(crate) fn times(&self, which: usize) -> &[u64] {
        &self.times[which]
    }

    /// Per entry: attributes are defined.
    pub(crate) fn attributes_defined(&self) -> impl Iterator<Item = bool> + Clone + '_ {
        self.flag(HAS_ATTRIBUTES)
    }

    /// The defined attributes, in entry order.
    pub(crate) fn attributes(&self) -> &[u32] {
        &self.attributes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_keep_entry_order_and_a_dropped_name_leaves_no_trace() {
        let mut t = FileTable::default();
        t.push_entry(
            "dir",
            Fields {
                empty_stream: true,
                times: [None, None, Some(5)],
                attributes: Some(0x10),
                ..Fields::default()
            },
        );
        let at = t.push_name("gone😀");
        assert_eq!(t.pending_name(at), "gone😀");
        t.drop_name(at);
        let at = t.push_name("e😀");
        t.push(Fields {
            empty_stream: true,
            empty_file: true,
            times: [Some(1), None, Some(6)],
            ..Fields::default()
        });
        assert_eq!(at, 4);
        t.push_entry("a", Fields::default());
        assert_eq!(t.len(), 3);
        assert_eq!(t.names(), "dir\0e😀\0a\0");
        assert_eq!(t.name_units(), 4 + 4 + 2);
        assert_eq!(t.empty_stream().collect::<Vec<_>>(), [true, true, false]);
        assert_eq!(t.empty_file().collect::<Vec<_>>(), [false, true]);
        assert_eq!(
            t.time_defined(MTIME).collect::<Vec<_>>(),
            [true, true, false]
        );
        assert_eq!(t.times(MTIME), [5, 6]);
        assert_eq!(t.times(CTIME), [1]);
        assert!(t.times(ATIME).is_empty());
        assert_eq!(
            t.attributes_defined().collect::<Vec<_>>(),
            [true, false, false]
        );
        assert_eq!(t.attributes(), [0x10]);
    }
}
