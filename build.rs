//! Links the `codeguard` executable as non-PIE on Linux: start-up time is a product feature (the
//! hook runs on every shell command an agent types), and a non-PIE executable needs no run-time
//! relocation of its pointer-bearing read-only data — measured as most of the gap between a
//! hello-world binary and codeguard's start-up. Only the binary is affected, not libraries or
//! proc-macros.

// A build script reads cargo's variables from its environment (clippy.toml's rule is for the
// crate itself).
#![allow(clippy::disallowed_methods)]

fn main() {
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if linux {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
