//! Property tests: the analyser is total (random bytes, random shell-ish text, random
//! compositions of corpus commands never panic), and composing a guarded command into any list,
//! sub-shell, `if`, loop, brace group, called function or substitution keeps it guarded (unless
//! a literal `true`/`false`/`:` decides the branch never runs).

use codeguard::stages::bash::{self, Mode};
use proptest::prelude::*;

use crate::corpus;

/// Single-line corpus commands that parse exactly (no UNVERIFIED, no comment that could swallow
/// what follows).
fn exact_one_liners() -> Vec<(String, Option<Mode>)> {
    corpus::cases()
        .into_iter()
        .filter(|c| {
            !c.command.contains('\n') && !c.command.contains('#') && !c.expect.iter().any(|e| e == "U")
        })
        .map(|c| {
            let mode = bash::analyse(&c.command).mode();
            (c.command, mode)
        })
        .collect()
}

fn all_commands() -> Vec<String> {
    corpus::cases().into_iter().map(|c| c.command).collect()
}

const TEMPLATES: &[&str] = &[
    "X && G",
    "G && X",
    "X; G",
    "X || G",
    "X | G",
    "G | X",
    "(G)",
    "(X; G)",
    "{ G; }",
    "{ X; G; } > /dev/null 2>&1",
    "if X; then G; fi",
    "if G; then X; fi",
    "if X; then X; else G; fi",
    "while X; do G; done",
    "until X; do G; done",
    "for i in 1 2; do G; done",
    "case y in *) G;; esac",
    "f() { G; }; f",
    "f() { G; }; trap f INT",
    "echo \"$(G)\"",
    "x=`G`",
    "G &",
    "X & G",
    "! G",
    "time G",
    "X\nG",
    "nohup G > /dev/null 2>&1 &",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = bash::analyse(&text);
    }

    #[test]
    fn random_shell_text_never_panics(text in "[a-z '\"$(){};&|<>`\\\\\n#=!~*\\[\\]-]{0,120}") {
        let _ = bash::analyse(&text);
        let _ = bash::analyse(&format!("git {text}"));
        let _ = bash::analyse(&format!("bash -c '{text}'"));
    }

    #[test]
    fn random_compositions_of_corpus_commands_never_panic(
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 1..5),
        seps in proptest::collection::vec(prop::sample::select(vec![" && ", " || ", "; ", " | ", "\n", " & "]), 4),
    ) {
        let all = all_commands();
        let mut text = String::new();
        for (i, p) in picks.iter().enumerate() {
            if i > 0 {
                text.push_str(seps[i - 1]);
            }
            text.push_str(&all[p.index(all.len())]);
        }
        let _ = bash::analyse(&text);
        let _ = bash::analyse(&format!("({text})"));
        let _ = bash::analyse(&format!("bash -c \"{text}\""));
    }

    #[test]
    fn composing_a_guarded_command_keeps_it_guarded(
        g in any::<prop::sample::Index>(),
        x in any::<prop::sample::Index>(),
        template in prop::sample::select(TEMPLATES.to_vec()),
    ) {
        let pool = exact_one_liners();
        let guarded: Vec<_> = pool.iter().filter(|(_, m)| m.is_some()).collect();
        let (g_cmd, g_mode) = guarded[g.index(guarded.len())];
        let (x_cmd, _) = &pool[x.index(pool.len())];
        // Backticks do not nest without escaping: "x=`echo `git …``" is not a substitution.
        prop_assume!(!(template.contains('`') && g_cmd.contains('`')));
        // `nohup C=commit; git $C`: a wrapper turns G's leading assignment into a command name.
        prop_assume!(!g_cmd.split_whitespace().next().is_some_and(|w| w.contains('=')) || !template.contains("G "));
        // A literal `true`/`false`/`:` in X or G decides branches: `false && G` never runs G, and
        // `! G` with G = `false || git push` never pushes.
        prop_assume!(!x_cmd.split(|c: char| c.is_whitespace() || ";&|()!".contains(c)).any(|w| matches!(w, "true" | "false" | ":")));
        prop_assume!(!g_cmd.split(|c: char| c.is_whitespace() || ";&|()!".contains(c)).any(|w| matches!(w, "true" | "false" | ":")));
        let composed = template.replace('X', "\u{0}").replace('G', g_cmd).replace('\u{0}', x_cmd);
        let mode = bash::analyse(&composed).mode();
        prop_assert!(mode >= *g_mode, "`{}` lost its mode {:?}: now {:?}", composed, g_mode, mode);
    }
}
