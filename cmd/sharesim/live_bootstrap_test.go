package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// The --bootstrap path against a cluster the run did not start: a kfake cluster of its own
// (three brokers, TLS, SASL/SCRAM-SHA-512, Kafka's default share settings but a 15 s lock,
// the floor live mode assumes for a real cluster), reached only by `--bootstrap HOST:PORT`
// and the TLS/SASL flags, as a real cluster would be. Before the run, someone else's
// topic and share group exist — named as the scenario's topic and group, and one named like
// another live run's — with records, acknowledged state and group configs. The test
// asserts the verdict, that every topic and group the run created is gone at the end, that
// the foreign ones are exactly as they were, and that no request of the run named them.

const (
	bootUser = "sharesim"
	bootPass = "not-a-secret"
)

// foreignNames are the topics and groups the live run must never touch: the scenario's
// own names without a prefix, and a name with another run's prefix.
var (
	foreignTopics = []string{"orders", "sharesim-live-00000000-orders"}
	foreignShare  = "workers"
	foreignOther  = "sharesim-live-00000000-workers"
	foreignClass  = "workers-classic"
)

// bootCluster is the external cluster with a witness of every name a request carried.
type bootCluster struct {
	c      *kfake.Cluster
	caFile string
	tls    *tls.Config // the clients'

	mu       sync.Mutex
	watching bool            // the live run is going: record what its requests name
	ids      map[string]bool // foreign topic IDs (as strings)
	touched  []string        // foreign names a request named while watching
	created  map[string]bool // topics created while watching
	groups   map[string]bool // groups a share heartbeat named while watching
}

func newBootCluster(t *testing.T) *bootCluster {
	t.Helper()
	serverTLS, clientTLS, caPEM := selfSigned(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.TLS(serverTLS), kfake.EnableSASL(),
		kfake.Superuser("SCRAM-SHA-512", bootUser, bootPass),
		kfake.BrokerConfigs(map[string]string{
			// kfake reads the lock from the broker config only; Kafka takes the group config
			// live mode sets (held at the 15 s floor). Same lock either way.
			"group.share.record.lock.duration.ms": "15000",
			"share.record.lock.sweep.interval.ms": "500",
			// Lowered from Kafka's 45 s (with its minimum) so that the killed member is
			// dropped, and the group can be deleted, within seconds.
			"group.share.session.timeout.ms": "6000",
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	b := &bootCluster{c: c, caFile: caFile, tls: clientTLS, ids: map[string]bool{}, created: map[string]bool{}, groups: map[string]bool{}}
	c.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		b.witness(req)
		return nil, nil, false
	})
	return b
}

func (b *bootCluster) client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.c.ListenAddrs()...), kgo.DialTLSConfig(b.tls.Clone()),
		kgo.SASL(scram.Auth{User: bootUser, Pass: bootPass}.AsSha512Mechanism())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// witness notes, while the live run goes, every foreign topic or group a request names,
// the topics it creates and the share groups it joins.
func (b *bootCluster) witness(req kmsg.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.watching {
		return
	}
	var topics, ids, groups []string
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		for _, t := range r.Topics {
			topics = append(topics, t.Topic)
			b.created[t.Topic] = true
		}
	case *kmsg.DeleteTopicsRequest:
		for _, t := range r.Topics {
			if t.Topic != nil {
				topics = append(topics, *t.Topic)
			}
			ids = append(ids, fmt.Sprint(t.TopicID))
		}
		topics = append(topics, r.TopicNames...)
	case *kmsg.DeleteRecordsRequest:
		for _, t := range r.Topics {
			topics = append(topics, t.Topic)
		}
	case *kmsg.ProduceRequest:
		for _, t := range r.Topics {
			topics = append(topics, t.Topic)
			ids = append(ids, fmt.Sprint(t.TopicID))
		}
	case *kmsg.IncrementalAlterConfigsRequest:
		for _, rs := range r.Resources {
			topics, groups = append(topics, rs.ResourceName), append(groups, rs.ResourceName)
		}
	case *kmsg.AlterConfigsRequest:
		for _, rs := range r.Resources {
			topics, groups = append(topics, rs.ResourceName), append(groups, rs.ResourceName)
		}
	case *kmsg.DeleteGroupsRequest:
		groups = append(groups, r.Groups...)
	case *kmsg.ShareGroupHeartbeatRequest:
		groups = append(groups, r.GroupID)
		b.groups[r.GroupID] = true
		topics = append(topics, r.SubscribedTopicNames...)
	case *kmsg.ShareFetchRequest:
		if r.GroupID != nil {
			groups = append(groups, *r.GroupID)
		}
		for _, t := range r.Topics {
			ids = append(ids, fmt.Sprint(t.TopicID))
		}
	case *kmsg.ShareAcknowledgeRequest:
		if r.GroupID != nil {
			groups = append(groups, *r.GroupID)
		}
		for _, t := range r.Topics {
			ids = append(ids, fmt.Sprint(t.TopicID))
		}
	case *kmsg.OffsetCommitRequest:
		groups = append(groups, r.Group)
	case *kmsg.OffsetDeleteRequest:
		groups = append(groups, r.Group)
	case *kmsg.AlterShareGroupOffsetsRequest:
		groups = append(groups, r.GroupID)
	case *kmsg.DeleteShareGroupOffsetsRequest:
		groups = append(groups, r.GroupID)
	case *kmsg.ConsumerGroupHeartbeatRequest:
		groups = append(groups, r.Group)
	case *kmsg.JoinGroupRequest:
		groups = append(groups, r.Group)
	}
	for _, n := range topics {
		if contains(foreignTopics, n) {
			b.touched = append(b.touched, fmt.Sprintf("%T names topic %s", req, n))
		}
	}
	for _, id := range ids {
		if b.ids[id] {
			b.touched = append(b.touched, fmt.Sprintf("%T names foreign topic ID %s", req, id))
		}
	}
	for _, g := range groups {
		if g == foreignShare || g == foreignOther || g == foreignClass {
			b.touched = append(b.touched, fmt.Sprintf("%T names group %s", req, g))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// foreignState is everything observable about the foreign topics and groups.
type foreignState struct {
	Records      map[string][]string          // topic/partition → "offset:value" of every record
	Starts, Ends map[string]int64             // topic/partition → log start / end
	Share        map[string]map[string]int64  // group → topic/partition → share start offset
	Committed    map[string]int64             // classic group: topic/partition → committed offset
	Configs      map[string]map[string]string // group → dynamic group configs
	Groups       []string                     // every group the cluster lists
	Topics       []string                     // every topic the cluster lists
}

// seedForeign creates the foreign topics and groups with data and committed state.
func (b *bootCluster) seedForeign(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := b.client(t)
	adm := kadm.NewClient(cl)
	for _, tp := range foreignTopics {
		resp, err := adm.CreateTopic(ctx, 2, -1, nil, tp)
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			t.Fatalf("creating %s: %v", tp, err)
		}
		b.mu.Lock()
		b.ids[fmt.Sprint(resp.ID)] = true
		b.mu.Unlock()
		for i := 0; i < 40; i++ {
			r := &kgo.Record{Topic: tp, Partition: int32(i % 2), Value: []byte(fmt.Sprintf("foreign-%s-%d", tp, i))}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("producing to %s: %v", tp, err)
			}
		}
	}
	for _, g := range []string{foreignShare, foreignOther} {
		setGroupConfig(t, ctx, cl, g, "share.auto.offset.reset", "earliest")
		// A share consumer of the foreign group accepts some records and releases others,
		// so the group has start offsets and in-flight state of its own.
		sc := b.client(t, kgo.ShareGroup(g), kgo.ConsumeTopics(foreignTopics...), kgo.ShareMaxRecords(7))
		accepted := 0
		for accepted < 20 && ctx.Err() == nil {
			fs := sc.PollRecords(ctx, 7)
			fs.EachRecord(func(r *kgo.Record) {
				if accepted < 20 && r.Offset%3 != 2 {
					r.Ack(kgo.AckAccept)
					accepted++
				} else {
					r.Ack(kgo.AckRelease)
				}
			})
			if err := sc.FlushAcks(ctx); err != nil {
				t.Fatalf("acknowledging for %s: %v", g, err)
			}
		}
		sc.Close()
	}
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 11})
	offs.Add(kadm.Offset{Topic: "orders", Partition: 1, At: 5})
	if err := adm.CommitAllOffsets(ctx, foreignClass, offs); err != nil {
		t.Fatalf("committing %s: %v", foreignClass, err)
	}
}

func setGroupConfig(t *testing.T, ctx context.Context, cl *kgo.Client, group, key, value string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	cf := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cf.Name, cf.Value = key, kmsg.StringPtr(value)
	res.Configs = append(res.Configs, cf)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err == nil && resp.Resources[0].ErrorCode != 0 {
		err = fmt.Errorf("error code %d", resp.Resources[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("setting %s of %s: %v", key, group, err)
	}
}

// groupConfigs returns a group's configs set on the group itself.
func groupConfigs(t *testing.T, ctx context.Context, cl *kgo.Client, group string) map[string]string {
	t.Helper()
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("describing %s's configs: %v", group, err)
	}
	out := map[string]string{}
	for _, r := range resp.Resources {
		for _, c := range r.Configs {
			if c.Source == kmsg.ConfigSourceGroupConfig && c.Value != nil {
				out[c.Name] = *c.Value
			}
		}
	}
	return out
}

// state reads the foreign state and the cluster's lists of topics and groups.
func (b *bootCluster) state(t *testing.T) foreignState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := b.client(t)
	adm := kadm.NewClient(cl)
	s := foreignState{Records: map[string][]string{}, Starts: map[string]int64{}, Ends: map[string]int64{},
		Share: map[string]map[string]int64{}, Committed: map[string]int64{}, Configs: map[string]map[string]string{}}
	starts, err := adm.ListStartOffsets(ctx, foreignTopics...)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := adm.ListEndOffsets(ctx, foreignTopics...)
	if err != nil {
		t.Fatal(err)
	}
	starts.Each(func(o kadm.ListedOffset) { s.Starts[fmt.Sprintf("%s/%d", o.Topic, o.Partition)] = o.Offset })
	ends.Each(func(o kadm.ListedOffset) { s.Ends[fmt.Sprintf("%s/%d", o.Topic, o.Partition)] = o.Offset })
	// Every record, read directly (no group).
	parts := map[string]map[int32]kgo.Offset{}
	for _, tp := range foreignTopics {
		parts[tp] = map[int32]kgo.Offset{0: kgo.NewOffset().AtStart(), 1: kgo.NewOffset().AtStart()}
	}
	rd := b.client(t, kgo.ConsumePartitions(parts))
	want := int64(0)
	for _, e := range s.Ends {
		want += e
	}
	var got int64
	for got < want && ctx.Err() == nil {
		rd.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			k := fmt.Sprintf("%s/%d", r.Topic, r.Partition)
			s.Records[k] = append(s.Records[k], fmt.Sprintf("%d:%s", r.Offset, r.Value))
			got++
		})
	}
	rd.Close()
	for _, g := range []string{foreignShare, foreignOther} {
		ds, err := adm.DescribeShareGroupOffsets(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for tp, ps := range ds[g].Offsets {
			for p, o := range ps {
				m[fmt.Sprintf("%s/%d", tp, p)] = o.StartOffset
			}
		}
		s.Share[g] = m
		s.Configs[g] = groupConfigs(t, ctx, cl, g)
	}
	fo, err := adm.FetchOffsets(ctx, foreignClass)
	if err != nil {
		t.Fatal(err)
	}
	fo.Each(func(o kadm.OffsetResponse) { s.Committed[fmt.Sprintf("%s/%d", o.Topic, o.Partition)] = o.At })
	lg, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Groups = lg.Groups()
	sort.Strings(s.Groups)
	td, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Topics = td.Names()
	sort.Strings(s.Topics)
	return s
}

// check compares the state after a run with the state before, and asserts the run created
// topics and joined groups under a prefix of its own, all gone now.
func (b *bootCluster) check(t *testing.T, before foreignState, run string) {
	t.Helper()
	after := b.state(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl := b.client(t)
	b.mu.Lock()
	var groups []string
	for g := range b.groups {
		groups = append(groups, g)
	}
	b.mu.Unlock()
	for _, g := range groups {
		if c := groupConfigs(t, ctx, cl, g); len(c) > 0 {
			t.Errorf("%s: group %s's configs are still set after the run: %v", run, g, c)
		}
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("%s: the foreign topics and groups changed:\nbefore %+v\nafter  %+v", run, before, after)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.touched {
		t.Errorf("%s: a request of the run named what it did not create: %s", run, s)
	}
	if len(b.created) == 0 || len(b.groups) == 0 {
		t.Fatalf("%s: the run created no topic (%v) or joined no share group (%v)", run, b.created, b.groups)
	}
	for _, names := range []map[string]bool{b.created, b.groups} {
		for n := range names {
			if !strings.HasPrefix(n, "sharesim-live-") || strings.HasPrefix(n, "sharesim-live-00000000-") {
				t.Errorf("%s: the run used %s, not under a prefix of its own", run, n)
			}
			if contains(after.Topics, n) || contains(after.Groups, n) {
				t.Errorf("%s: %s is still there after the run", run, n)
			}
		}
	}
	b.touched, b.created, b.groups = nil, map[string]bool{}, map[string]bool{}
}

func (b *bootCluster) watch(on bool) {
	b.mu.Lock()
	b.watching = on
	b.mu.Unlock()
}

func (b *bootCluster) liveArgs(out string) []string {
	return []string{"live", "quickstart", "--time-scale", "0.05", "--out", out,
		"--bootstrap", strings.Join(b.c.ListenAddrs(), ","), "--tls-ca", b.caFile,
		"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", bootUser}
}

func TestLiveBootstrapLeavesForeignStateAlone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to a subprocess")
	}
	// Parallel: the live runs mostly wait on the wall clock (some 20 s under -race), beside
	// the parallel tests of the built-ins. It is the only parallel test that calls run in
	// this process (run binds its flags to package variables), and the only one that reads
	// SHARESIM_SASL_PASSWORD, which t.Setenv would refuse to set in a parallel test.
	t.Parallel()
	b := newBootCluster(t)
	b.seedForeign(t)
	before := b.state(t)
	if len(before.Share[foreignShare]) == 0 || len(before.Committed) == 0 || before.Configs[foreignShare]["share.auto.offset.reset"] != "earliest" {
		t.Fatalf("the foreign state was not seeded: %+v", before)
	}
	os.Setenv("SHARESIM_SASL_PASSWORD", bootPass)
	t.Cleanup(func() { os.Unsetenv("SHARESIM_SASL_PASSWORD") })

	// A whole run, production shortened to 80 s of scenario time (4 s live) with the
	// kill at 1 m: the killed member sends no leave, so the group can be deleted only once
	// the broker's session timeout dropped it.
	t.Run("complete", func(t *testing.T) {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		b.watch(true)
		code := run(append([]string{"--no-progress"}, append(b.liveArgs(dir), "--set", "duration=80s")...), &out, &errb)
		b.watch(false)
		if code != exitOK {
			t.Fatalf("exit %d, want 0\n%s\n%s", code, out.String(), errb.String())
		}
		notes, err := os.ReadFile(filepath.Join(dir, "live.json"))
		if err != nil {
			t.Fatal(err)
		}
		// quickstart's kill strikes whichever worker holds records at 1 m (holding: true).
		if !strings.Contains(string(notes), "ms: kill worker-") || strings.Contains(string(notes), "cleanup:") {
			t.Errorf("live.json's notes: want the kill of a worker and no cleanup failure:\n%s", notes)
		}
		for _, want := range []string{"on kafka", "PASS      linearizable", "PASS      records-accounted", "group.share.min.record.lock.duration.ms"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the summary lacks %q:\n%s", want, out.String())
			}
		}
		t.Logf("summary:\n%s", out.String())
		b.check(t, before, "complete run")
	})

	// SIGINT mid-production to a sharesim live process: exit 3, and still nothing left
	// behind and nothing foreign touched.
	t.Run("sigint", func(t *testing.T) {
		dir := t.TempDir()
		b.watch(true)
		cmd := exec.Command(os.Args[0], append([]string{"--no-progress"}, b.liveArgs(dir)...)...)
		cmd.Env = append(os.Environ(), asCLI+"=1", "GORACE="+quickRaceExit)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Interrupt once the run produces to its own topic.
		deadline := time.Now().Add(60 * time.Second)
		for !b.produced() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		b.watch(false)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitIncomplete {
			t.Fatalf("exit %v, want code 3\n%s", err, stdout.String())
		}
		if !strings.Contains(stdout.String(), "INTERRUPTED") {
			t.Errorf("the summary does not say the run was interrupted:\n%s", stdout.String())
		}
		b.check(t, before, "interrupted run")
	})
}

// produced reports whether the watched run created a topic (it produces right after).
func (b *bootCluster) produced() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.groups) > 0
}

// selfSigned makes a CA-signed server certificate for 127.0.0.1 and the matching configs.
func selfSigned(t *testing.T) (server, client *tls.Config, caPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sharesim test cluster"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(caPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, caPEM
}
