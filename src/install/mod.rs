//! Installing codeguard where it is called from: git's own hooks (`install --git-hooks`) and
//! agent hosts' settings (`install --host H`), with what a host needs before it runs them
//! (`codex`: hook trust records; `gemini`: folder trust, on request).
//!
//! Every target follows the same rules: it is written only because the user asked, it never
//! clobbers what others put there (it chains or merges, and keeps what it replaced), running it
//! twice changes nothing, and `uninstall` restores what was there before.

pub(crate) mod codex;
pub(crate) mod dsh;
pub(crate) mod gemini;
pub(crate) mod git_hooks;
pub(crate) mod hook_managers;
pub(crate) mod hook_reach;
pub(crate) mod hook_script;
pub(crate) mod hosts;
pub(crate) mod plugin;
pub(crate) mod protected;
pub(crate) mod session_hooks;
pub(crate) mod settings;
#[cfg(test)]
mod table;
