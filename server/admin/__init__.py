"""The operators' console (issue 14): admin accounts, sessions, the audit, the admin routes."""
