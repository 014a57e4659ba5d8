"""The operators' console: admin accounts, sessions, the audit, the admin routes."""
