package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/sharesim/sharesim/live"
)

// liveFlags are sharesim live's flags.
type liveFlags struct {
	bootstrap   string
	scale       float64
	out         string
	seed        uint64
	repeat      int
	sets        []string
	maxWall     time.Duration
	tls         bool
	tlsCA       string
	tlsCert     string
	tlsKey      string
	tlsInsecure bool
	saslMech    string
	saslUser    string
}

func newLiveCmd() *cobra.Command {
	var f liveFlags
	cmd := &cobra.Command{
		Use:   "live SCENARIO",
		Short: "Run a scenario through a real Kafka client against a real broker, check the history, compare with the prediction",
		Long: `live runs the scenario's workload with franz-go (kgo): producers at the scenario's rates,
share consumers acknowledging by the scenario's outcomes, classic consumer groups, and the
faults a client can cause. Without --bootstrap it starts an embedded kfake cluster. Every
ShareFetch and ShareAcknowledge is recorded as the simulator's history operations and
checked with the same checkers; the simulator runs the same scaled scenario and the summary
sets its prediction beside the measurement.

On a real cluster every topic and group is created with a unique prefix and deleted at the
end; nothing else is touched. Ctrl-C stops production, lets the consumers finish, and still
writes the history, the verdicts and the report (exit 3).

SASL's password is read from SHARESIM_SASL_PASSWORD.`,
		Example: `  sharesim live quickstart --time-scale 0.05 --out out/live
  sharesim live quickstart --time-scale 0.5 --bootstrap broker1:9092,broker2:9092 --out out/live-kafka`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runLive(cmd, args[0], &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.bootstrap, "bootstrap", "", "HOST:PORT,... of a Kafka cluster (default: an embedded kfake cluster)")
	fl.Float64Var(&f.scale, "time-scale", 1, "multiply every duration of the scenario by this factor (rates divided by it)")
	fl.StringVar(&f.out, "out", "", "result folder: history.ndjson, live.json, summary.txt, index.html")
	fl.Uint64Var(&f.seed, "seed", 0, "seed (default: the scenario's)")
	fl.IntVar(&f.repeat, "repeat", 1, "live runs, to estimate the noise between runs")
	fl.StringArrayVar(&f.sets, "set", nil, "override a scenario value (path=value), as for run")
	fl.DurationVar(&f.maxWall, "max-wall", 0, "bound on each live run's wall time (default: the scaled scenario plus 2m)")
	fl.BoolVar(&f.tls, "tls", false, "connect with TLS")
	fl.StringVar(&f.tlsCA, "tls-ca", "", "PEM file of the CA to trust (implies --tls)")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "PEM client certificate (with --tls-key; implies --tls)")
	fl.StringVar(&f.tlsKey, "tls-key", "", "PEM client key")
	fl.BoolVar(&f.tlsInsecure, "tls-insecure", false, "do not verify the brokers' certificates")
	fl.StringVar(&f.saslMech, "sasl-mechanism", "", "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fl.StringVar(&f.saslUser, "sasl-user", "", "SASL user (password from SHARESIM_SASL_PASSWORD)")
	return cmd
}

func runLive(cmd *cobra.Command, name string, f *liveFlags) error {
	sc, err := loadScenario(name, f.sets)
	if err != nil {
		return err
	}
	if f.repeat < 1 || f.repeat > 100 {
		return usageErr("--repeat %d: expected 1..100", f.repeat)
	}
	target, err := liveTarget(f)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var progress = cmd.ErrOrStderr()
	if progressOff {
		progress = nil
	}
	res, err := live.Run(ctx, sc, live.Options{Target: target, TimeScale: f.scale, Seed: f.seed, Out: f.out, Repeat: f.repeat, MaxWall: f.maxWall, Progress: progress})
	var ue *live.UnsupportedError
	if errors.As(err, &ue) {
		return inputErr(err)
	}
	if err != nil && res == nil {
		return &exitError{code: exitUsage, err: err}
	}
	res.Summary(cmd.OutOrStdout())
	if f.out != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "\nreport: %s\n", strings.TrimSuffix(f.out, "/")+"/index.html")
	}
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if code := res.ExitCode(); code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// liveTarget builds the connection settings from the flags.
func liveTarget(f *liveFlags) (live.Target, error) {
	var t live.Target
	if f.bootstrap != "" {
		for _, b := range strings.Split(f.bootstrap, ",") {
			if b = strings.TrimSpace(b); b != "" {
				t.Bootstrap = append(t.Bootstrap, b)
			}
		}
	}
	usesTLS := f.tls || f.tlsCA != "" || f.tlsCert != "" || f.tlsInsecure
	usesSASL := f.saslMech != ""
	if t.Embedded() && (usesTLS || usesSASL) {
		return t, usageErr("--tls and --sasl-* need --bootstrap (the embedded cluster is plaintext)")
	}
	if usesTLS {
		cfg := &tls.Config{InsecureSkipVerify: f.tlsInsecure, MinVersion: tls.VersionTLS12} //nolint:gosec // the user asked for it
		if f.tlsCA != "" {
			pem, err := os.ReadFile(f.tlsCA)
			if err != nil {
				return t, inputErr(fmt.Errorf("--tls-ca: %w", err))
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return t, inputErr(fmt.Errorf("--tls-ca %s: no PEM certificate found", f.tlsCA))
			}
			cfg.RootCAs = pool
		}
		if (f.tlsCert == "") != (f.tlsKey == "") {
			return t, usageErr("--tls-cert and --tls-key go together")
		}
		if f.tlsCert != "" {
			cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
			if err != nil {
				return t, inputErr(fmt.Errorf("--tls-cert/--tls-key: %w", err))
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		t.TLS = cfg
	}
	if usesSASL {
		pass := os.Getenv("SHARESIM_SASL_PASSWORD")
		if f.saslUser == "" {
			return t, usageErr("--sasl-mechanism needs --sasl-user (and SHARESIM_SASL_PASSWORD)")
		}
		var m sasl.Mechanism
		switch strings.ToUpper(f.saslMech) {
		case "PLAIN":
			m = plain.Auth{User: f.saslUser, Pass: pass}.AsMechanism()
		case "SCRAM-SHA-256":
			m = scram.Auth{User: f.saslUser, Pass: pass}.AsSha256Mechanism()
		case "SCRAM-SHA-512":
			m = scram.Auth{User: f.saslUser, Pass: pass}.AsSha512Mechanism()
		default:
			return t, usageErr("--sasl-mechanism %q: expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", f.saslMech)
		}
		t.SASL = m
	}
	return t, nil
}
