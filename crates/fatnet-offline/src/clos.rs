//! Yuan (stub in this worktree).
