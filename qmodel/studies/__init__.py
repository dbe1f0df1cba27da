"""Domain models of the studies: distance fits, CF subchannels, asynchronous replication, SSD
candidates (layer 3). Each composes catalogue entries and algorithms."""
