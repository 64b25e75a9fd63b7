//! Tool identity: what the planned commands would execute, and the environment they read.
//!
//! For each program a plan runs (and probes), the file `PATH` resolves it to, followed through
//! symlinks, by path, size, mtime, ctime and inode — replacing or upgrading a binary changes it.
//! For `npx` tools, the project's `node_modules/.bin/<tool>` and npm's lock of `node_modules`.
//! A program named by a relative path is a project file, by its stat data under the directory
//! the check runs in.
//! Plus the variables that steer which tool and which libraries run ([`RELEVANT_ENV`]).
//! Best effort by nature: a tool's plugins or a config file in the user's home are not seen;
//! the soft cache's time limit bounds how long such a change can go unnoticed.

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::env::Env;
use crate::registry::Argv;

/// Environment variables that change which tool runs or what it loads.
pub(crate) const RELEVANT_ENV: &[&str] = &[
    "PATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYTHONPATH",
    "PYTHONHOME",
    "JAVA_HOME",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUSTUP_TOOLCHAIN",
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "CARGO_BUILD_TARGET",
    "CLIPPY_CONF_DIR",
    "RUSTUP_HOME",
    "CARGO_HOME",
    "GOROOT",
    "GOPATH",
    "GOFLAGS",
    "GEM_HOME",
    "GEM_PATH",
    "BUNDLE_GEMFILE",
];

/// Feeds the identity of the tools behind `commands` and of the relevant environment into
/// `hasher`.
pub(crate) fn digest<'a>(
    hasher: &mut blake3::Hasher,
    commands: impl IntoIterator<Item = &'a Argv>,
    workspace: &Path,
    env: &Env,
) {
    let programs: BTreeSet<(&str, Option<&str>)> = commands
        .into_iter()
        .filter_map(|argv| {
            let program = argv.first()?.as_str();
            let npx_tool = (program == "npx")
                .then(|| argv.iter().skip(1).find(|a| !a.starts_with('-')).map(String::as_str))
                .flatten();
            Some((program, npx_tool))
        })
        .collect();
    for (program, npx_tool) in programs {
        program_file(hasher, program, workspace, env);
        if let Some(tool) = npx_tool {
            let modules = workspace.join("node_modules");
            file(hasher, &modules.join(".bin").join(tool));
            file(hasher, &modules.join(".package-lock.json"));
        }
    }
    environment(hasher, env, RELEVANT_ENV.iter().copied());
}

/// Feeds each variable of `keys` (its value, or that it is unset) into `hasher`.
pub(crate) fn environment<'a>(
    hasher: &mut blake3::Hasher,
    env: &Env,
    keys: impl IntoIterator<Item = &'a str>,
) {
    for key in keys {
        hasher.update(key.as_bytes());
        match env.get(key) {
            Some(value) => {
                hasher.update(b"=");
                hasher.update(value.as_encoded_bytes());
            }
            None => {
                hasher.update(b" unset");
            }
        }
        hasher.update(b"\0");
    }
}

/// Feeds `program` into `hasher`: its name and the file it runs — found on `PATH` when it is a
/// bare name, under `cwd` when it is a relative path —, by path and stat data.
pub(crate) fn program_file(hasher: &mut blake3::Hasher, program: &str, cwd: &Path, env: &Env) {
    hasher.update(program.as_bytes());
    hasher.update(b"\0");
    if program.starts_with('/') {
        file(hasher, Path::new(program));
    } else if program.contains('/') {
        file(hasher, &cwd.join(program));
    } else {
        match env.which(program) {
            Some(found) => file(hasher, &found),
            None => {
                hasher.update(b"missing\0");
            }
        }
    }
}

/// A file by its path, its resolved path and the resolved file's stat data.
fn file(hasher: &mut blake3::Hasher, path: &Path) {
    hasher.update(path.as_os_str().as_encoded_bytes());
    hasher.update(b"\0");
    let Ok(real) = path.canonicalize() else {
        hasher.update(b"absent\0");
        return;
    };
    hasher.update(real.as_os_str().as_encoded_bytes());
    hasher.update(b"\0");
    if let Ok(meta) = std::fs::metadata(&real) {
        for n in [
            meta.size(),
            meta.ino(),
            meta.dev(),
            u64::from(meta.mode()),
            meta.mtime().cast_unsigned(),
            meta.mtime_nsec().cast_unsigned(),
            meta.ctime().cast_unsigned(),
            meta.ctime_nsec().cast_unsigned(),
        ] {
            hasher.update(&n.to_le_bytes());
        }
    }
}
