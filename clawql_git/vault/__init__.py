"""The vault layer: the facade, the one writer, the one reader, review routing, setup and import."""
