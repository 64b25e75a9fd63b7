//! The prompt classifier (pure): does a user prompt ask to commit, push or deploy *now*?
//! Questions, negations, past tense and discussion do not count. English and Chinese.

/// What a prompt asks for, when it asks to commit, push or deploy now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PromptIntent {
    /// Commit (or deploy, which commits first).
    Commit,
    /// Push.
    Push,
}

const QUESTION_MARKERS: &[&str] =
    &["么", "吗", "如何", "怎么", "有没有", "是不是", "什么是", "哪些", "能否", "可以吗"];
const QUESTION_OPENERS: &[&str] = &[
    "should", "can", "could", "would", "do", "does", "did", "is", "are", "was", "how", "what", "why", "when",
    "where", "which", "shall", "may",
];
const NEGATIONS: &[&str] = &[
    "don't", "dont", "do not", "never", "not", "without", "no", "stop", "avoid", "别", "不要", "不", "未",
    "没", "勿", "无需",
];
const PREFIXES: &[&str] = &[
    "",
    "git",
    "to",
    "then",
    "and",
    "now",
    "please",
    "pls",
    "ok",
    "okay",
    "帮我",
    "请",
    "请帮我",
    "现在",
    "然后",
    "再",
    "并",
];
const ACTION_PHRASES: &[&str] = &[
    "please",
    "now",
    "next",
    "proceed",
    "go ahead",
    "commit this",
    "push this",
    "deploy this",
    "帮我",
    "请",
    "马上",
    "立刻",
    "现在",
    "下一步",
    "继续",
];

/// Decides whether a prompt asks to commit, push or deploy now (English and Chinese). Questions,
/// negations, past tense and discussion do not trigger.
pub(super) fn prompt_intent(prompt: &str) -> Option<PromptIntent> {
    let lower = prompt.to_lowercase();
    let sentences = lower.split_inclusive(['.', '。', '!', '！', '?', '？', '\n', ';', '；']);
    for sentence in sentences {
        let Some((before, word)) = keyword(sentence) else { continue };
        if is_question(sentence) || is_negated(before) {
            continue;
        }
        // Quotes and list or quote marks before the word are not words (opencode passes a
        // prompt of several words quoted: `"Commit the change."`).
        let prefix = before
            .trim()
            .trim_end_matches([',', '，', ':', '：'])
            .trim()
            .trim_matches(['"', '\'', '`', '“', '”', '‘', '’', '「', '(', '[', '*', '-', '>', '#'])
            .trim();
        let last_word = prefix.rsplit(char::is_whitespace).next().unwrap_or("");
        if PREFIXES.contains(&prefix)
            || PREFIXES.contains(&last_word)
            || ACTION_PHRASES.iter().any(|p| lower.contains(p))
        {
            return Some(if word == "push" || word == "推送" {
                PromptIntent::Push
            } else {
                PromptIntent::Commit
            });
        }
    }
    None
}

/// The first trigger keyword of a sentence: (text before it, the keyword).
fn keyword(sentence: &str) -> Option<(&str, &str)> {
    let english =
        ["commit", "push", "deploy"].into_iter().filter_map(|w| find_word(sentence, w).map(|i| (i, w)));
    let chinese =
        ["提交", "推送", "发布", "部署"].into_iter().filter_map(|w| sentence.find(w).map(|i| (i, w)));
    english.chain(chinese).min_by_key(|(i, _)| *i).map(|(i, w)| (&sentence[..i], w))
}

/// The byte index of `word` as a whole word in `text`.
pub(super) fn find_word(text: &str, word: &str) -> Option<usize> {
    text.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn is_question(sentence: &str) -> bool {
    let trimmed = sentence.trim();
    let first = trimmed.split_whitespace().next().unwrap_or("");
    trimmed.ends_with(['?', '？'])
        || QUESTION_MARKERS.iter().any(|m| trimmed.contains(m))
        || QUESTION_OPENERS.contains(&first)
}

fn is_negated(before: &str) -> bool {
    let tail: String =
        before.trim_end().chars().rev().take(12).collect::<Vec<_>>().into_iter().rev().collect();
    NEGATIONS.iter().any(|n| {
        let n_is_ascii = n.is_ascii();
        if n_is_ascii { find_word(&tail, n).is_some() } else { tail.contains(n) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_that_ask_to_commit_or_push_now() {
        for (prompt, expected) in [
            ("commit this", PromptIntent::Commit),
            ("Please commit the changes.", PromptIntent::Commit),
            ("git push", PromptIntent::Push),
            ("Fix the tests, then push.", PromptIntent::Push),
            ("ok, deploy it now", PromptIntent::Commit),
            ("帮我提交代码", PromptIntent::Commit),
            ("请推送到远程", PromptIntent::Push),
            ("现在发布", PromptIntent::Commit),
            ("\"Commit the staged change.\"", PromptIntent::Commit),
            ("- commit this", PromptIntent::Commit),
            ("> “push it”", PromptIntent::Push),
        ] {
            assert_eq!(prompt_intent(prompt), Some(expected), "{prompt}");
        }
    }

    #[test]
    fn questions_negations_past_tense_and_discussion_do_not_trigger() {
        for prompt in [
            "Should I commit this?",
            "can you explain what git push does",
            "我刚才 pushed 了",
            "别提交这些文件",
            "不要推送",
            "don't commit yet",
            "I already pushed the branch",
            "the commit message looks wrong",
            "what does this deploy script do?",
            "提交了吗",
            "refactor the deployment module",
        ] {
            assert_eq!(prompt_intent(prompt), None, "{prompt}");
        }
    }
}
