"""The MCP adapter: the vault and code graph tools served over stdio or HTTP."""
