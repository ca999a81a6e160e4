module replicapool.dev/pause

go 1.21
