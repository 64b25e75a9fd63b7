//! `git` itself: its global options, the sub-command (`bash/git.rs` models its command line),
//! and aliases (`alias.*`, resolved later through `crate::intent`, or expanded when given).

use super::{
    AliasCall, Ctx, DirPart, GitCall, GitEnv, Mode, Severity, Stdin, Step, Walker, Word, expand, git,
    looks_like,
};

impl Walker<'_> {
    pub(super) fn git(&mut self, args: &[Word], ctx: &Ctx) {
        let g = git::globals(args);
        let Some(si) = g.sub else {
            if ctx.from_stdin {
                // `… | xargs git`: the sub-command itself comes from stdin.
                self.unseen_calls = true;
                self.opaque(
                    format!("`{}`: git's sub-command comes from stdin, only known at run time", ctx.text),
                    Some(Mode::Push),
                    Severity::Unverified,
                );
            }
            return;
        };
        let sub = &args[si];
        if sub.text == "submodule"
            && let Some(at) = args[si + 1..].iter().position(|w| w.text == "foreach")
        {
            // `git submodule foreach CODE`: shell code run in each submodule.
            let code: Vec<&str> = args[si + 1 + at + 1..]
                .iter()
                .filter(|w| !w.text.starts_with("--") && w.text != "-q")
                .map(|w| w.raw.as_str())
                .collect();
            let code = code.join(" ");
            if let Some(mode) = looks_like(&code).or(if code.contains('$') { Some(Mode::Push) } else { None })
            {
                self.unseen_calls = true;
                self.opaque(
                    format!("`git submodule foreach` runs `{code}` in each submodule: those repositories are not modelled"),
                    Some(mode),
                    Severity::Unverified,
                );
            }
            return;
        }
        if !sub.literal {
            // `git $C`: which command runs is only known at run time: never a silent pass.
            self.unseen_calls = true;
            let looks = looks_like(&ctx.text).or(self.source_looks);
            self.opaque(
                format!("`{}`: the git sub-command is only known at run time", ctx.text),
                looks,
                Severity::Unverified,
            );
            return;
        }
        let globbed;
        let args = if self.globstar && args[si + 1..].iter().any(|w| w.text.contains("**") && w.raw == w.text)
        {
            // The shell expands `**` recursively before git sees it: git's own `:(glob)` magic
            // matches the same paths.
            globbed = args
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    if i > si && w.text.contains("**") && w.raw == w.text && !w.text.starts_with([':', '-']) {
                        Word { text: format!(":(glob){}", w.text), ..w.clone() }
                    } else {
                        w.clone()
                    }
                })
                .collect::<Vec<_>>();
            &globbed[..]
        } else {
            args
        };
        let sub = &args[si];
        let unquoted_glob = |w: &Word| w.raw == w.text && w.text.contains(['*', '?', '[', '(']);
        let glob_ctx;
        let ctx = match &self.glob_option {
            Some(option) if args[si + 1..].iter().any(unquoted_glob) => {
                // `shopt -s nocaseglob` and the like: the words git gets are only known at run
                // time (read as words from stdin: every change they could name is taken).
                self.opaque(
                    format!("`{}`: `shopt -s {option}` changes what the shell's globs match", ctx.text),
                    None,
                    Severity::Unverified,
                );
                glob_ctx = Ctx { from_stdin: true, ..ctx.clone() };
                &glob_ctx
            }
            _ => ctx,
        };
        self.git_writes(&sub.text, &args[si + 1..], &ctx.text);
        if sub.text == "config" {
            self.guard_git_config(&args[si + 1..]);
        }
        if !git::is_builtin(&sub.text) {
            return self.git_alias(args, si, &g, ctx);
        }
        if let Some((name, value)) =
            (sub.text == "config").then(|| git::alias_definition(&args[si + 1..])).flatten()
        {
            self.aliases.insert(name, value);
        }
        let Some(op) = git::sub_op(&sub.text, &args[si + 1..], ctx.from_stdin) else { return };
        let mut dir = self.dir.clone();
        dir.extend(ctx.extra_dir.iter().cloned());
        dir.extend(g.dirs);
        let inherited = if ctx.ignore_exported { GitEnv::default() } else { self.exported.clone() };
        let env = inherited.overlaid(&ctx.env).overlaid(&g.env);
        self.out.steps.push(Step::Git(GitCall {
            op,
            dir,
            chain: self.chain,
            depth: self.depth,
            inline_skip_gate: g.skip_gate,
            notes: ctx.notes.clone(),
            env,
            text: ctx.text.clone(),
        }));
    }

    /// `git NAME …` where NAME is no git command: an alias given by `-c alias.NAME=…` or
    /// defined earlier in the command is expanded here; any other is left for
    /// [`crate::intent`] to look up in the git config ([`Step::Alias`]).
    pub(super) fn git_alias(&mut self, args: &[Word], si: usize, g: &git::Globals, ctx: &Ctx) {
        let name = args[si].text.to_ascii_lowercase();
        let value = match g.aliases.iter().rev().find(|(n, _)| *n == name) {
            Some((_, v)) => Some(Some(v.clone())),
            None => self.aliases.get(&name).cloned(),
        };
        match value {
            Some(Some(value)) => self.expand_alias(&name, &value, args, si, ctx),
            Some(None) => {
                let looks = looks_like(&ctx.text).or(self.source_looks);
                self.opaque(
                    format!(
                        "`{}`: the alias `{name}` is defined with a value only known at run time",
                        ctx.text
                    ),
                    looks,
                    Severity::Unverified,
                );
            }
            None => {
                let mut dir = self.dir.clone();
                dir.extend(ctx.extra_dir.iter().cloned());
                let mut config_dir = dir.clone();
                config_dir.extend(g.dirs.iter().cloned());
                let inherited = if ctx.ignore_exported { GitEnv::default() } else { self.exported.clone() };
                self.out.steps.push(Step::Alias(AliasCall {
                    name,
                    words: args.to_vec(),
                    sub: si,
                    dir,
                    config_dir,
                    chain: self.chain,
                    depth: self.depth,
                    env: inherited.overlaid(&ctx.env),
                    from_stdin: ctx.from_stdin,
                    seen: self.alias_stack.clone(),
                    notes: ctx.notes.clone(),
                    text: ctx.text.clone(),
                }));
            }
        }
    }

    /// Runs the alias `name` = `value` for the git words `args` (sub-command at `si`). A plain
    /// alias replaces the sub-command by its words; a `!` alias is shell code run from the top
    /// of the worktree with the remaining words as `"$@"`, one indirection level down.
    pub(super) fn expand_alias(&mut self, name: &str, value: &str, args: &[Word], si: usize, ctx: &Ctx) {
        if self.alias_stack.len() >= Self::MAX_ALIAS_DEPTH || self.alias_stack.iter().any(|n| n == name) {
            return;
        }
        self.alias_stack.push(name.to_owned());
        let rest = args.get(si + 1..).unwrap_or_default();
        if let Some(code) = value.strip_prefix('!') {
            let g = git::globals(args);
            let saved_dir = self.dir.clone();
            self.dir.extend(ctx.extra_dir.iter().cloned());
            self.dir.extend(g.dirs);
            self.dir.push(DirPart::Toplevel);
            let inherited = if ctx.ignore_exported { GitEnv::default() } else { self.exported.clone() };
            let saved_env =
                std::mem::replace(&mut self.exported, inherited.overlaid(&ctx.env).overlaid(&g.env));
            let saved_args = self.positional.replace(rest.to_vec());
            let code = if rest.is_empty() { code.to_owned() } else { format!("{code} \"$@\"") };
            self.indirect_shell(&code, &format!("the shell alias `git {name}`"), true);
            self.positional = saved_args;
            self.exported = saved_env;
            self.dir = saved_dir;
        } else if let Some(words) = expand::split_cmdline(value) {
            let mut expanded = args[..si].to_vec();
            expanded.extend(words.iter().map(|w| Word::literal(w)));
            expanded.extend_from_slice(rest);
            self.git(&expanded, ctx);
        }
        self.alias_stack.pop();
    }

    /// The alias call [`crate::intent`] found a value for in the git config.
    pub(in crate::bash) fn resolved_alias(&mut self, call: &AliasCall, value: &str) {
        self.dir.clone_from(&call.dir);
        self.chain = call.chain;
        self.exported = call.env.clone();
        self.alias_stack.clone_from(&call.seen);
        let ctx = Ctx {
            notes: call.notes.clone(),
            env: GitEnv::default(),
            ignore_exported: false,
            extra_dir: Vec::new(),
            from_stdin: call.from_stdin,
            stdin: Stdin::None,
            literal_stdin: None,
            text: call.text.clone(),
        };
        self.expand_alias(&call.name, value, &call.words, call.sub, &ctx);
    }
}
