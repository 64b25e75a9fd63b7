//! The support files of a registry: the configuration names the per-file linters read, which a
//! snapshot of changed files writes beside them (`crate::snapshot` asks; the names are the
//! registry's).

/// The file names (and `*suffix` globs, which match in the root only, like `requiresConfig`)
/// of the configuration the per-file linters read: a snapshot of the changed files writes,
/// beside them, every entry so named in the root and in each directory above a changed file
/// (the places tools look their configuration up).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SupportFiles {
    names: std::collections::BTreeSet<Vec<u8>>,
    suffixes: Vec<Vec<u8>>,
    /// A bit per (length, first byte, last byte) class of the names: most entries of a large
    /// listing are rejected without a set lookup.
    classes: Vec<u64>,
}

/// The class bit of a name for [`SupportFiles::classes`] (4,096 classes).
fn name_class(name: &[u8]) -> usize {
    let (first, last) = (name.first().copied().unwrap_or(0), name.last().copied().unwrap_or(0));
    ((name.len() & 0xf) << 8 | usize::from(first.wrapping_mul(31) ^ last)) & 0xfff
}

impl SupportFiles {
    /// The support files of `names` (a leading `*` makes a suffix pattern; names with a `/`
    /// are matched by their last component).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut out = Self { classes: vec![0; 64], ..Self::default() };
        for name in names {
            let last = name.rsplit('/').next().unwrap_or(name);
            match last.strip_prefix('*') {
                Some(suffix) if !suffix.is_empty() => out.suffixes.push(suffix.as_bytes().to_vec()),
                Some(_) => {}
                None => {
                    let class = name_class(last.as_bytes());
                    out.classes[class / 64] |= 1 << (class % 64);
                    out.names.insert(last.as_bytes().to_vec());
                }
            }
        }
        out
    }

    /// The exact names (not the suffix patterns).
    pub(crate) fn names(&self) -> impl Iterator<Item = &[u8]> {
        self.names.iter().map(Vec::as_slice)
    }

    /// Whether an entry named `name` (its last path component) is a support file; suffix
    /// patterns count only for entries `in_root`.
    pub(crate) fn matches(&self, name: &[u8], in_root: bool) -> bool {
        let class = name_class(name);
        let maybe = self.classes.get(class / 64).is_some_and(|bits| bits & (1 << (class % 64)) != 0);
        (maybe && self.names.contains(name)) || (in_root && self.suffixes.iter().any(|s| name.ends_with(s)))
    }
}
