package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/sharesim/sharesim/reports"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Redraw the plots and index.html of a run or sweep folder",
		Long: `Redraw the report of a result folder from the files in it, without running anything:
the plots (SVG and PNG) and index.html, one self-contained page with the scenario, its
settings, the verdict, each violation with its reproduce command, the headline numbers and
every plot.

'sharesim run --out DIR' and 'sharesim sweep --out DIR' draw the report themselves; use this
after changing sharesim's plots, or on a folder written by an older version.`,
		Example: `  sharesim run quickstart --out out/q
  sharesim report out/q
  sharesim sweep quickstart --seeds 1..3 --set duration=1m,2m --out out/s
  sharesim report out/s`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			lock, err := lockFolder(dir)
			if err != nil {
				return err
			}
			defer lock.release()
			// Every file is written whole (temporary file, then rename), so a signal
			// leaves the old report or the new one; the drawing in progress finishes.
			intr := catchInterrupts()
			defer intr.Stop()
			if err := drawReport(cmd.OutOrStdout(), dir, true); err != nil {
				return err
			}
			if intr.Interrupted() {
				return &exitError{code: exitIncomplete, err: fmt.Errorf("report %s: interrupted; the drawing in progress was finished and written", dir)}
			}
			return nil
		},
	}
}

// drawReport draws the report of a result folder; verbose lists the files it wrote.
func drawReport(w io.Writer, dir string, verbose bool) error {
	files, err := reports.Render(dir)
	if err != nil {
		return inputErr(err)
	}
	if verbose {
		fmt.Fprintf(w, "report: %d files in %s, open %s\n", len(files), filepath.ToSlash(dir), filepath.ToSlash(filepath.Join(dir, "index.html")))
	}
	return nil
}
