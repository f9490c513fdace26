"""Bus wiring: streams, envelopes, versioned decoding, stage consumers, publishing."""
