package sim

// wire creates the actors and gives each the actors it sends messages to: this is the
// actor map of docs/simulator.md.
func wire(w *World) {
	e, t := &w.engine, &w.topology
	reqs := &requests{}
	w.metrics, w.history = new(metrics), new(history)
	w.logs, w.prod, w.leaders, w.coord, w.net = new(logs), new(producerClients), new(leaders), new(shareCoordinator), new(network)
	w.procs, w.share, w.classic, w.gcoord = new(processes), new(shareClients), new(classicClients), new(groupCoordinator)
	w.faults, w.dlq, w.configs = new(faultInjector), new(dlqManager), new(groupConfigs)

	*w.metrics = metrics{engine: e, topology: t, logs: w.logs, configs: w.configs, coord: w.coord}
	*w.history = history{engine: e, topology: t, reqs: reqs}
	*w.logs = logs{engine: e, topology: t, leaders: w.leaders, classic: w.classic, metrics: w.metrics, history: w.history}
	*w.prod = producerClients{engine: e, topology: t, logs: w.logs, net: w.net}
	*w.leaders = leaders{engine: e, topology: t, coord: w.coord, net: w.net, dlq: w.dlq, configs: w.configs, reqs: reqs, metrics: w.metrics, history: w.history}
	*w.coord = shareCoordinator{engine: e, topology: t, leaders: w.leaders, metrics: w.metrics, history: w.history}
	*w.net = network{engine: e, topology: t, leaders: w.leaders, reqs: reqs, metrics: w.metrics}
	*w.procs = processes{engine: e, topology: t, share: w.share, classic: w.classic, gcoord: w.gcoord, net: w.net, metrics: w.metrics, history: w.history}
	*w.share = shareClients{engine: e, topology: t, net: w.net, leaders: w.leaders, gcoord: w.gcoord, configs: w.configs, procs: w.procs, reqs: reqs, metrics: w.metrics, history: w.history}
	*w.classic = classicClients{engine: e, topology: t, net: w.net, gcoord: w.gcoord, procs: w.procs, metrics: w.metrics}
	*w.gcoord = groupCoordinator{engine: e, topology: t, classic: w.classic, coord: w.coord, metrics: w.metrics, history: w.history}
	*w.faults = faultInjector{engine: e, topology: t, procs: w.procs, share: w.share, net: w.net, logs: w.logs, leaders: w.leaders, coord: w.coord, dlq: w.dlq, configs: w.configs, gcoord: w.gcoord, metrics: w.metrics}
	*w.dlq = dlqManager{engine: e, topology: t, coord: w.coord, leaders: w.leaders, metrics: w.metrics}
	*w.configs = groupConfigs{engine: e, topology: t, leaders: w.leaders}
}

// build creates what the configuration describes, actor by actor, and schedules the first
// events (the order of these calls is the order of the first events).
func (w *World) build() error {
	topicIdx := w.logs.build()
	w.leaders.build()
	w.prod.build(topicIdx)
	w.metrics.start(len(w.cfg.Groups))
	w.gcoord.build(topicIdx)
	w.procs.build()
	w.configs.buildGroupConfigs()
	if err := w.faults.buildFaults(); err != nil {
		return err
	}
	w.push(0, event{kind: evMetrics})
	if w.cfg.HealMs > 0 {
		w.push(w.cfg.DurationMs, event{kind: evHeal})
	}
	return nil
}
