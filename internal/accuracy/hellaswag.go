package accuracy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
)

// HellaSwag (Rowan/hellaswag) as AIPerf 0.13 builds it from DeepEval's
// template: for each task (an activity label), every labelled row of the
// validation split, preceded by n few-shot examples taken from the first
// train row of each activity label in train order (whatever the task),
// with DeepEval's confinement line appended; the gold is the letter.
const (
	hellaswagRepo        = "Rowan/hellaswag"
	hellaswagMaxShots    = 15
	hellaswagGeneration  = 5
	hellaswagHeader      = "The following are multiple choice questions (with answers) are sentence completion problems about %s.\n\n"
	hellaswagConfinement = "Output 'A', 'B', 'C', or 'D'. Full answer not needed."
)

// hellaswagTasks are DeepEval's HellaSwag tasks (activity labels) in its
// order, which is the order of the problems with every task selected.
var hellaswagTasks = []string{
	"Applying sunscreen", "Trimming branches or hedges", "Disc dog", "Wakeboarding", "Skateboarding",
	"Waterskiing", "Washing hands", "Sailing", "Playing congas", "Ballet", "Roof shingle removal",
	"Hand car wash", "Kite flying", "Playing pool", "Playing lacrosse", "Layup drill in basketball",
	"Home and Garden", "Playing beach volleyball", "Calf roping", "Scuba diving", "Mixing drinks",
	"Putting on shoes", "Making a lemonade", "Uncategorized", "Zumba", "Playing badminton", "Playing bagpipes",
	"Food and Entertaining", "Personal Care and Style", "Cricket", "Shoveling snow", "Ping-pong",
	"Holidays and Traditions", "Ice fishing", "Beach soccer", "Table soccer", "Swimming", "Baton twirling",
	"Javelin throw", "Shot put", "Doing crunches", "Polishing shoes", "Travel", "Using uneven bars",
	"Playing harmonica", "Relationships", "High jump", "Making a sandwich", "Powerbocking",
	"Removing ice from car", "Shaving", "Sharpening knives", "Welding", "Using parallel bars",
	"Home,Categories", "Rock climbing", "Snow tubing", "Washing face", "Assembling bicycle",
	"Tennis serve with ball bouncing", "Shuffleboard", "Dodgeball", "Capoeira", "Paintball",
	"Doing a powerbomb", "Doing motocross", "Playing ice hockey", "Philosophy and Religion", "Archery",
	"Cars & Other Vehicles", "Running a marathon", "Throwing darts", "Painting furniture",
	"Having an ice cream", "Slacklining", "Camel ride", "Arm wrestling", "Hula hoop", "Surfing",
	"Playing piano", "Gargling mouthwash", "Playing accordion", "Horseback riding", "Putting in contact lenses",
	"Playing saxophone", "Futsal", "Long jump", "Longboarding", "Pole vault", "Building sandcastles",
	"Platform diving", "Painting", "Spinning", "Carving jack-o-lanterns", "Braiding hair", "Youth",
	"Playing violin", "Canoeing", "Cheerleading", "Pets and Animals", "Kayaking", "Cleaning shoes", "Knitting",
	"Baking cookies", "Doing fencing", "Playing guitarra", "Using the rowing machine", "Getting a haircut",
	"Mooping floor", "River tubing", "Cleaning sink", "Grooming dog", "Discus throw", "Cleaning windows",
	"Finance and Business", "Hanging wallpaper", "Rope skipping", "Windsurfing", "Kneeling",
	"Getting a piercing", "Rock-paper-scissors", "Sports and Fitness", "Breakdancing", "Walking the dog",
	"Playing drums", "Playing water polo", "BMX", "Smoking a cigarette", "Blowing leaves", "Bullfighting",
	"Drinking coffee", "Bathing dog", "Tango", "Wrapping presents", "Plastering", "Playing blackjack",
	"Fun sliding down", "Work World", "Triple jump", "Tumbling", "Skiing", "Doing kickboxing",
	"Blow-drying hair", "Drum corps", "Smoking hookah", "Mowing the lawn", "Volleyball", "Laying tile",
	"Starting a campfire", "Sumo", "Hurling", "Playing kickball", "Making a cake", "Fixing the roof",
	"Playing polo", "Removing curlers", "Elliptical trainer", "Health", "Spread mulch", "Chopping wood",
	"Brushing teeth", "Using the pommel horse", "Snatch", "Clipping cat claws", "Putting on makeup",
	"Hand washing clothes", "Hitting a pinata", "Tai chi", "Getting a tattoo", "Drinking beer", "Shaving legs",
	"Doing karate", "Playing rubik cube", "Family Life", "Rollerblading", "Education and Communications",
	"Fixing bicycle", "Beer pong", "Ironing clothes", "Cutting the grass", "Raking leaves", "Playing squash",
	"Hopscotch", "Installing carpet", "Polishing furniture", "Decorating the Christmas tree", "Preparing salad",
	"Preparing pasta", "Vacuuming floor", "Clean and jerk", "Computers and Electronics", "Croquet",
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// hellaswagEnumName is a task's DeepEval enum name (APPLYING_SUNSCREEN,
// CARS_AND_OTHER_VEHICLES), which --accuracy-tasks also accepts.
func hellaswagEnumName(task string) string {
	return strings.Trim(nonAlnum.ReplaceAllString(strings.ToUpper(strings.ReplaceAll(task, "&", "and")), "_"), "_")
}

// pickHellaswagTasks resolves --accuracy-tasks as AIPerf does: none or
// "all" alone is every task; otherwise each name is an activity label
// (any case) or its enum name, and unknown names are an error.
func pickHellaswagTasks(tasks []string) ([]string, error) {
	if len(tasks) == 0 {
		return hellaswagTasks, nil
	}
	for _, t := range tasks {
		if strings.EqualFold(t, "all") {
			if len(tasks) == 1 {
				return hellaswagTasks, nil
			}
			return nil, fmt.Errorf("--accuracy-tasks: 'all' cannot be mixed with other HellaSwag tasks (got %q)", tasks)
		}
	}
	var out, unknown []string
	for _, t := range tasks {
		found := ""
		for _, h := range hellaswagTasks {
			if strings.EqualFold(t, h) || strings.ToUpper(t) == hellaswagEnumName(h) {
				found = h
				break
			}
		}
		if found == "" {
			unknown = append(unknown, t)
			continue
		}
		out = append(out, found)
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("--accuracy-tasks: unknown HellaSwag task(s) %q: give activity labels (\"Applying sunscreen\") or enum names (APPLYING_SUNSCREEN); %d tasks, e.g. %s",
			unknown, len(hellaswagTasks), strings.Join(hellaswagTasks[:5], ", "))
	}
	return out, nil
}

// hellaswagQuestion is DeepEval's format_question: the context, the four
// lettered endings, "Answer:" and, for a few-shot example, its letter.
func hellaswagQuestion(r hfdata.Row, withAnswer bool) (string, error) {
	endings := list(r["endings"])
	if len(endings) < 4 {
		return "", fmt.Errorf("a row has %d endings, want 4", len(endings))
	}
	var b strings.Builder
	b.WriteString(str(r, "ctx"))
	for j := range 4 {
		fmt.Fprintf(&b, "\n%c. %s", letters[j], endings[j])
	}
	b.WriteString("\nAnswer:")
	if withAnswer {
		g, ok := hellaswagLabel(r["label"])
		if !ok {
			return "", fmt.Errorf("a few-shot row has label %v", r["label"])
		}
		fmt.Fprintf(&b, " %c\n\n", letters[g])
	}
	return b.String(), nil
}

// hellaswagLabel reads the gold index, a string ("0".."3") in the hub's
// files; false when the row is unlabelled (the test split).
func hellaswagLabel(v any) (int, bool) {
	var g int
	switch x := v.(type) {
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, false
		}
		g = n
	case nil:
		return 0, false
	default:
		g = goldIndex(v)
	}
	return g, g >= 0 && g < 4
}

func loadHellaswag(l *loader, tasks []string, shots int, _ bool) ([]Problem, error) {
	if shots > hellaswagMaxShots {
		return nil, fmt.Errorf("--accuracy-n-shots %d: HellaSwag takes at most %d few-shot examples (DeepEval's bound)", shots, hellaswagMaxShots)
	}
	selected, err := pickHellaswagTasks(tasks)
	if err != nil {
		return nil, err
	}
	train, err := l.rows(hellaswagRepo, "", "train")
	if err != nil {
		return nil, err
	}
	var shotRows []hfdata.Row
	seen := map[string]bool{}
	for _, r := range train {
		if a := str(r, "activity_label"); !seen[a] {
			seen[a] = true
			shotRows = append(shotRows, r)
		}
	}
	if shots > len(shotRows) {
		return nil, fmt.Errorf("--accuracy-n-shots %d: the train split has only %d activity labels to draw few-shot examples from", shots, len(shotRows))
	}
	var prefix strings.Builder
	for i := range shots {
		q, err := hellaswagQuestion(shotRows[i], true)
		if err != nil {
			return nil, fmt.Errorf("%s train: %w", hellaswagRepo, err)
		}
		prefix.WriteString(q)
	}
	val, err := l.rows(hellaswagRepo, "", "validation")
	if err != nil {
		return nil, err
	}
	byLabel := map[string][]hfdata.Row{}
	for _, r := range val {
		a := str(r, "activity_label")
		byLabel[a] = append(byLabel[a], r)
	}
	var out []Problem
	for _, task := range selected {
		for _, r := range byLabel[task] {
			g, ok := hellaswagLabel(r["label"])
			if !ok {
				continue
			}
			q, err := hellaswagQuestion(r, false)
			if err != nil {
				return nil, fmt.Errorf("%s validation: %w", hellaswagRepo, err)
			}
			p := fmt.Sprintf(hellaswagHeader, task) + prefix.String() + q + "\n\n" + hellaswagConfinement
			out = append(out, Problem{Prompt: p, Messages: []Message{{"user", p}}, Truth: string(letters[g]), Task: task, MaxTokens: hellaswagGeneration})
		}
	}
	return out, nil
}
