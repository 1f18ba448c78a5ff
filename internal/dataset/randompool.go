package dataset

import "errors"

// streamRandomPool draws random_pool samples.
const streamRandomPool = "dataset.loader.random_pool"

// randomPool reads a random_pool dataset: a JSONL file of entries, or a
// directory whose files are named pools (e.g. queries.jsonl and
// passages.jsonl). As in AIPerf, each of the Conversations conversations
// is one turn made of one entry drawn (with replacement) from every pool,
// their texts, images and audios concatenated in pool (file name) order.
func (l *loader) randomPool() ([]Conversation, error) {
	files := []string{l.opts.Path}
	if isDir(l.opts.Path) {
		var err error
		if files, err = dirFiles(l.opts.Path); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, &InputError{File: l.opts.Path, Err: errors.New("the directory holds no files")}
		}
	}
	var pools [][]Turn
	var p problems
	for _, file := range files {
		var pool []Turn
		p.eachLine(file, func(_ int, line []byte) error {
			r, err := parseRow(line)
			if err != nil {
				return err
			}
			ts, err := parseTurnRow(r, true)
			if err != nil {
				return err
			}
			if err := resolveTurnMedia(&ts.turn); err != nil {
				return err
			}
			pool = append(pool, ts.turn)
			return nil
		})
		if len(pool) == 0 && len(p.errs) == 0 {
			p.add(&InputError{File: file, Err: errors.New("the pool is empty")})
		}
		pools = append(pools, pool)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	n := l.opts.Conversations
	if n <= 0 {
		n = DefaultPoolConversations
	}
	rng := newStream(l.seed, streamRandomPool)
	convs := make([]Conversation, n)
	for i := range convs {
		convs[i].ID = l.sessionID()
		convs[i].Turns = []Turn{{}}
	}
	for _, pool := range pools {
		for i := range convs {
			src := pool[rng.IntN(len(pool))]
			t := &convs[i].Turns[0]
			t.Texts = append(t.Texts, src.Texts...)
			t.Images = append(t.Images, src.Images...)
			t.Audios = append(t.Audios, src.Audios...)
		}
	}
	l.countTurns(convs)
	return convs, nil
}
