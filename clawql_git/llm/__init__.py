"""An OpenAI-compatible chat endpoint the user configured (distillation, classification)."""
