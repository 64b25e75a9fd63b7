//! `scripts/release-flags.sh`, the release build's flags: on `x86_64` Linux with glibc, static and
//! non-PIE, with the functions `scripts/hot-functions.txt` names laid out first and together.
//! Proved by linking a small program with the flags the script makes from a list of its own.
#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::path::Path;
use std::process::Command;

const ON_GLIBC_X86_64: bool = cfg!(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"));

/// Sources a copy of release-flags.sh whose hot-function list is `list`, with `vars` set, and
/// returns the `RUSTFLAGS` and `CARGO_PROFILE_RELEASE_STRIP` it leaves.
fn flags(dir: &Path, list: &str, vars: &[(&str, &str)]) -> (String, String) {
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/release-flags.sh");
    std::fs::copy(script, scripts.join("release-flags.sh")).unwrap();
    std::fs::write(scripts.join("hot-functions.txt"), list).unwrap();
    let out = Command::new("bash")
        .args(["-c", ". scripts/release-flags.sh; printf '%s\\n%s\\n' \"$RUSTFLAGS\" \"${CARGO_PROFILE_RELEASE_STRIP:-}\""])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_PROFILE_RELEASE_STRIP")
        .env_remove("CODEGUARD_NO_HOT_ORDER")
        .env_remove("CODEGUARD_KEEP_SYMBOLS")
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    (lines.next().unwrap_or("").to_owned(), lines.next().unwrap_or("").to_owned())
}

/// Compiles and links `source` with `rustflags` into `binary`.
fn link(rustflags: &str, source: &Path, binary: &Path) -> std::path::PathBuf {
    let out = Command::new("rustc")
        .args(rustflags.split_whitespace())
        .args(["-C", "opt-level=2", "--crate-name", "demo", "-o"])
        .arg(binary)
        .arg(source)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    binary.to_path_buf()
}

/// The address of each symbol of `binary` whose name contains `part`.
fn address(binary: &Path, part: &str) -> u64 {
    let out = Command::new("nm").arg(binary).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains(part)).unwrap_or_else(|| panic!("no {part} in nm output"));
    u64::from_str_radix(line.split_whitespace().next().unwrap(), 16).unwrap()
}

#[test]
fn the_listed_functions_are_linked_first_and_together() {
    let tmp = tempfile::tempdir().unwrap();
    // Left alone, rustc 1.95 places `late` before `early`; the list names `early` (a non-generic
    // legacy-mangled name without its hash, as scripts/hot-functions.sh writes it).
    let list = "_ZN4demo5early17h\n";
    let (rustflags, strip) = flags(tmp.path(), list, &[("CODEGUARD_KEEP_SYMBOLS", "1")]);
    if !ON_GLIBC_X86_64 {
        assert!(!rustflags.contains("symbol-ordering-file"), "elsewhere cargo's defaults: {rustflags}");
        return;
    }
    assert!(
        rustflags.contains("+crt-static") && rustflags.contains("relocation-model=static"),
        "{rustflags}"
    );
    assert!(rustflags.contains("--symbol-ordering-file="), "the trial link accepted the layout: {rustflags}");
    assert_eq!(strip, "false", "the profile strips nothing (rustc does)");
    assert!(!rustflags.contains("strip=symbols"), "CODEGUARD_KEEP_SYMBOLS keeps them: {rustflags}");
    let source = tmp.path().join("demo.rs");
    std::fs::write(
        &source,
        "#[inline(never)] fn early() -> u32 { std::hint::black_box(1) }\n\
         fn main() { std::process::exit((early() + late()) as i32 - 3) }\n\
         #[inline(never)] fn late() -> u32 { std::hint::black_box(2) }\n",
    )
    .unwrap();
    let binary = link(&rustflags, &source, &tmp.path().join("demo"));
    assert_eq!(Command::new(&binary).status().unwrap().code(), Some(0), "the program runs");
    let sections = Command::new("readelf").args(["-SW"]).arg(&binary).output().unwrap();
    assert!(String::from_utf8_lossy(&sections.stdout).contains(".text.hot"), "the hot section exists");
    assert!(
        address(&binary, "4demo5early") < address(&binary, "4demo4late"),
        "the listed function comes before the one the default layout puts first"
    );

    let (stripped, _) = flags(tmp.path(), list, &[]);
    assert!(stripped.contains("-C strip=symbols"), "an installed build is stripped by rustc: {stripped}");
    let (plain, strip) = flags(tmp.path(), list, &[("CODEGUARD_NO_HOT_ORDER", "1")]);
    assert!(!plain.contains("symbol-ordering-file") && !plain.contains("-T,"), "{plain}");
    assert_eq!(strip, "", "the default layout keeps the profile's stripping");
    // The control: without the list the same program has `late` first, so the order above is
    // the list's doing.
    let control = link(&plain, &source, &tmp.path().join("demo-default"));
    assert!(
        address(&control, "4demo4late") < address(&control, "4demo5early"),
        "the default layout puts `late` first (else this test proves nothing)"
    );
}
