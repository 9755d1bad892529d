"""CLI sub-commands that live in their own modules (each has ``register``)."""
