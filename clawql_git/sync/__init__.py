"""Durability: git bundles to S3/Cloudflare R2 and Arweave, restore on a fresh machine."""
