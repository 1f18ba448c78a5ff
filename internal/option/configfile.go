package option

// configOptions lists the options from --config on, in help order.
func configOptions() []Option {
	return []Option{
		{Name: "config",
			Short: "f",
			Group: GroupInput,
			Meta:  "<file.yaml>",
			Usage: "YAML configuration file (AIPerf config v2: schemaVersion, benchmark, sweep, multi_run, variables, random_seed). Flags given on the command line override its values, false and 0 included. See 'aiperf config init'."},
	}
}
