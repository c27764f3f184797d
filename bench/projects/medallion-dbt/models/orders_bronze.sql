-- Bronze: raw orders. Incremental: reads only the files whose name is not
-- yet in the table (listed with glob() before the model runs), the usual
-- dbt way to load landed files once.
{{ config(materialized='incremental') }}
{% set src = var('data_dir') ~ '/orders' %}
{% set reader = "format = 'newline_delimited', union_by_name = true, filename = true" %}
{% if is_incremental() %}
  {% set q %}
    SELECT file FROM glob('{{ src }}/*')
    WHERE file NOT IN (SELECT DISTINCT filename FROM {{ this }}) ORDER BY file
  {% endset %}
  {% set files = run_query(q).columns[0].values() if execute else [] %}
  {% if files | length > 0 %}
SELECT * FROM read_json([{% for f in files %}'{{ f }}'{{ ', ' if not loop.last }}{% endfor %}], {{ reader }})
  {% else %}
SELECT * FROM {{ this }} WHERE false
  {% endif %}
{% else %}
SELECT * FROM read_json('{{ src }}/*', {{ reader }})
{% endif %}
