# Field extraction through arrays of structs (Spark's GetArrayStructFields):
# weather.main where weather is array<struct<main: string, ...>> is the
# array of the fields, nested struct fields too, through a view and with a
# table qualifier.

mkdir -p data
cat > data/weather.json <<'JSON'
{"city": "Oslo", "weather": [{"main": "Rain", "description": "light rain", "wind": {"speed": 3.5}}, {"main": "Mist", "description": "mist", "wind": {"speed": 1.0}}]}
{"city": "Rome", "weather": [{"main": "Clear", "description": "sunny", "wind": {"speed": 2.0}}]}
JSON

run_weir run
expect_exit 0
expect_query "SELECT city, mains, speeds, descriptions FROM conditions ORDER BY city" "city,mains,speeds,descriptions
Oslo,\"[Rain, Mist]\",\"[3.5, 1.0]\",\"[light rain, mist]\"
Rome,[Clear],[2.0],[sunny]"
expect_query "SELECT typeof(mains) AS t, typeof(speeds) AS s FROM conditions LIMIT 1" "t,s
array<string>,array<double>"
expect_query "SELECT city, main FROM first_main ORDER BY city" "city,main
Oslo,Rain
Rome,Clear"
expect_query "SELECT weather.main AS m FROM readings WHERE city = 'Rome'" "m
[Clear]"
