# recursiveFileLookup visits each real file once: symbolic links that loop
# back into the tree (self -> ., sub/up -> ..) add nothing and the walk
# ends at once; a link to a file already listed does not read it twice;
# a link to a folder outside the tree is followed. A new link to a file
# already ingested does not ingest it again under the new name.

mkdir -p landing/sub/deeper outside
echo '{"id": 1}' > landing/a.json
echo '{"id": 2}' > landing/sub/b.json
echo '{"id": 3}' > landing/sub/deeper/c.json
echo '{"id": 4}' > outside/d.json
ln -s . landing/self
ln -s .. landing/sub/up
ln -s ../.. landing/sub/deeper/top
ln -s ../a.json landing/sub/a-again.json
ln -s ../outside landing/out

start=$(date +%s)
run_weir run
expect_exit 0
expect_equal "seconds" "$(( $(date +%s) - start < 30 ))" 1
expect_query "SELECT id, count(*) AS n FROM events GROUP BY id ORDER BY id" "id,n
1,1
2,1
3,1
4,1"
# Real paths win over paths through links.
expect_query "SELECT regexp_extract(path, '(landing/.*)', 1) AS p FROM events ORDER BY id" "p
landing/a.json
landing/sub/b.json
landing/sub/deeper/c.json
landing/out/d.json"

# A new link to an ingested file, and a new file seen through the loops.
ln -s sub/b.json landing/b-link.json
echo '{"id": 5}' > landing/sub/e.json
run_weir run
expect_exit 0
expect_query "SELECT id, count(*) AS n FROM events GROUP BY id ORDER BY id" "id,n
1,1
2,1
3,1
4,1
5,1"
