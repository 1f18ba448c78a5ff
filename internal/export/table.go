package export

import "github.com/jedib0t/go-pretty/v6/text"

// Table renders a table as the console tables are rendered (Rich's heavy
// head, the title centred above), for commands other than profile (aiperf
// plugins): left-aligned columns, of which the last one wraps to fit width
// (0 = no limit).
func Table(title string, headers []string, rows [][]string, width int) string {
	cols := make([]column, len(headers))
	for i, h := range headers {
		cols[i] = column{header: h, align: text.AlignLeft, wrap: i == len(headers)-1}
	}
	return richTable(title, cols, rows, width)
}
