//! Files the command writes: where each lands (which repository, or outside every one), so the
//! rule on content written in the same call (`crate::surface::judge_writes`) knows what a later
//! commit could take.

use std::path::{Path, PathBuf};

use super::{BoundWrite, Event, FileWrite, Resolver, WriteKind, Written, normalise, read_script};

impl Resolver {
    /// The absolute path a write lands on, when it is known.
    pub(super) fn write_target(&mut self, w: &FileWrite, base: &Path) -> Option<PathBuf> {
        let dir = self.locate(base, &w.dir).ok()?;
        let mut abs = normalise(&dir.join(w.path.as_ref()?));
        if let WriteKind::Copy(from) = &w.kind {
            if abs.is_dir() {
                abs = abs.join(Path::new(from).file_name()?);
            }
        } else if abs.is_dir() && w.kind != WriteKind::Delete {
            return None;
        }
        Some(abs)
    }

    /// Records a write in command order, and what it leaves in the file for a script the
    /// command runs later.
    pub(super) fn write(&mut self, w: &FileWrite, base: &Path) {
        // Every path a write names, a directory too (`tar -C DIR x`, `find DIR -delete`): what
        // the protected-files check reads.
        if let (Ok(dir), Some(path)) = (self.locate(base, &w.dir), w.path.as_ref()) {
            self.intent.write_targets.push(normalise(&dir.join(path)));
        }
        if let Some(abs) = self.write_target(w, base) {
            if !self.intent.write_targets.contains(&abs) {
                self.intent.write_targets.push(abs.clone());
            }
            let unknown = || Written::Unknown(format!("`{}`", w.text));
            let known_or_disk = |this: &Self, path: &Path| match this.written.get(path) {
                Some(Written::Known(c)) => Some(c.clone()),
                Some(Written::Unknown(_) | Written::Deleted) => None,
                None => match read_script(path) {
                    Ok(c) => Some(c),
                    Err(_) if !path.exists() => Some(String::new()),
                    Err(_) => None,
                },
            };
            let now = match &w.kind {
                WriteKind::Content(Some(c)) => Some(Written::Known(c.clone())),
                WriteKind::Append(Some(c)) => {
                    Some(known_or_disk(self, &abs).map_or_else(unknown, |old| Written::Known(old + c)))
                }
                WriteKind::Copy(from) => {
                    let src = self.locate(base, &w.dir).map(|d| normalise(&d.join(from)));
                    let content = src.ok().filter(|s| s.exists() || self.written.contains_key(s));
                    Some(content.and_then(|s| known_or_disk(self, &s)).map_or_else(unknown, Written::Known))
                }
                WriteKind::Mode => None,
                WriteKind::Delete => Some(Written::Deleted),
                WriteKind::Content(None) | WriteKind::Append(None) | WriteKind::Modify => Some(unknown()),
            };
            if let Some(now) = now {
                self.written.insert(abs, now);
            }
        }
        self.events.push(Event::Write { write: w.clone(), base: base.to_path_buf() });
    }

    /// Binds a write to the repository its file lies in (none: it cannot land). A write whose
    /// directory is only known at run time may land in any repository of the command.
    pub(super) fn bind_write(&mut self, w: &FileWrite, base: &Path) {
        let Ok(dir) = self.locate(base, &w.dir) else {
            self.unplaced_writes.push(w.text.clone());
            self.intent.writes_outside = true;
            return;
        };
        let target = if w.path.is_some() { self.write_target(w, base) } else { None };
        if w.path.is_some() && target.is_none() && !matches!(w.kind, WriteKind::Copy(_)) {
            return; // a directory written as a file: the write fails
        }
        let probe_from = target.as_deref().and_then(Path::parent).unwrap_or(&dir).to_path_buf();
        let Some(existing) = probe_from.ancestors().find(|a| a.is_dir()).map(Path::to_path_buf) else {
            return;
        };
        let Ok(repo) = self.repo(&existing) else {
            self.intent.writes_outside = true;
            return;
        };
        let canonical = std::fs::canonicalize(&existing).unwrap_or_else(|_| existing.clone());
        let path = match &target {
            Some(abs) => {
                let full = match abs.strip_prefix(&existing) {
                    Ok(rest) => canonical.join(rest),
                    Err(_) => abs.clone(),
                };
                let Ok(rel) = full.strip_prefix(&repo.root) else {
                    self.intent.writes_outside = true;
                    return;
                };
                let rel = rel.to_string_lossy().into_owned();
                if rel == ".git" || rel.starts_with(".git/") {
                    let idx = self.entry(&repo.root, false);
                    self.intent.repos[idx].writes_git_dir = true;
                    return;
                }
                if rel.is_empty() {
                    return;
                }
                Some(rel)
            }
            // A path only known at run time, or copies into a directory under names not known.
            None => None,
        };
        let idx = self.entry(&repo.root, false);
        let entry = &mut self.intent.repos[idx];
        let before_op = entry.ops.len();
        let delete = w.kind == WriteKind::Delete;
        entry.writes.push(BoundWrite { path, before_op, delete, text: w.text.clone() });
    }
}
