package builtin

import "github.com/aiperf-go/aiperf/internal/plugin"

// Search categories (issue 18 adds to them).
var (
	categorySearchPlanner = plugin.Category{Name: "search_planner", Description: "Search planners choose the next " +
		"configuration of a search."}
	categorySearchRecipe = plugin.Category{Name: "search_recipe", Description: "Search recipes: a goal, the parameters " +
		"to vary and the SLAs to respect."}
	categoryConvergence = plugin.Category{Name: "convergence_criterion", Description: "Convergence criteria stop " +
		"repeated runs once their results agree."}
)

func searchPlannerEntries() []plugin.Entry { return nil }

func searchRecipeEntries() []plugin.Entry { return nil }

func convergenceEntries() []plugin.Entry { return nil }
