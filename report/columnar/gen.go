package columnar

//go:generate go run ../internal/fieldgen/cmd/genparquet -o fields_gen.go
