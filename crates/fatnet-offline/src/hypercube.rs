//! Stamoulis (stub in this worktree).
