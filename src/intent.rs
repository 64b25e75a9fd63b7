//! Binds the git operations of an analysis to repositories.
