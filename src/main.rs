//! The `codeguard` binary: hands the arguments to the library and maps one result to an exit code.

fn main() -> std::process::ExitCode {
    codeguard::main(std::env::args_os())
}
