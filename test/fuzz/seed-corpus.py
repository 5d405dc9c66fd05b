#!/usr/bin/env python3
"""Writes the seed corpora of test/fuzz/corpus/<target>/ from the test data
and the sample YAML (run from the repository root; idempotent).  Files the
fuzzer found (crash-*, regressions) are kept as they are."""
import glob, json, os, re, yaml

C = 'test/fuzz/corpus'
SAMPLES = sorted(glob.glob('../shared/samples/*/*.yaml') + glob.glob('config/samples/*.yaml'))


def put(target, name, data):
    os.makedirs(f'{C}/{target}', exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(f'{C}/{target}/seed-{name}', 'wb') as f:
        f.write(data)


def docs(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


# quantity: every quoted quantity-like string of the unit test
src = open('test/unit/test_quantity.c').read()
qs = sorted(set(re.findall(r'"([-+0-9.][-+0-9.eEa-zA-Z]{0,40})"', src)))
for i, q in enumerate(qs):
    put('quantity', f'{i:03d}', q)

# yaml: the YAML test data and the samples
for p in sorted(glob.glob('test/data/yaml/*.yaml')) + SAMPLES + ['test/data/kube/config.yaml']:
    put('yaml', os.path.basename(p), open(p, 'rb').read())

# object: API test data and every sample document, as JSON
n = 0
for p in sorted(glob.glob('test/data/api/*.json')) + sorted(glob.glob('test/data/webhook/*.json')):
    v = json.load(open(p))
    for o in (v if isinstance(v, list) else [v]):
        if isinstance(o, dict) and 'kind' in o:
            put('object', f'{os.path.basename(p)}-{n}', json.dumps(o)); n += 1
for p in SAMPLES:
    for d in docs(p):
        put('object', f'{os.path.basename(p)}-{n}.json', json.dumps(d)); n += 1

# patch: mode byte, document, NUL, patch (RFC test suites)
for i, t in enumerate(json.load(open('test/data/json/merge_patch_rfc7386.json'))):
    put('patch', f'merge-{i:02d}', b'\0' + json.dumps(t['target']).encode() + b'\0' +
        json.dumps(t['patch']).encode())
for i, t in enumerate(json.load(open('test/data/json/json_patch_rfc6902.json'))):
    put('patch', f'json-{i:02d}', b'\1' + json.dumps(t['doc']).encode() + b'\0' +
        json.dumps(t['patch']).encode())

# watch: event streams of sample objects, with bookmarks, errors, blanks
objs = [json.loads(open(f'{C}/object/{f}').read()) for f in sorted(os.listdir(f'{C}/object'))[:12]]
lines = [json.dumps({'type': t, 'object': o}) for t, o in
         zip(['ADDED', 'MODIFIED', 'DELETED'] * 4, objs)]
put('watch', 'events', '\n'.join(lines) + '\n')
put('watch', 'crlf-no-final-newline', '\r\n'.join(lines[:3]))
put('watch', 'bookmark-error',
    '{"type":"BOOKMARK","object":{"kind":"Job","metadata":{"resourceVersion":"12"}}}\n\n'
    '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}\n')

# webhook: path byte, AdmissionReview / ConversionReview around sample objects
paths = ['/mutate-kueue-x-k8s-io-v1beta2-clusterqueue', '/mutate-kueue-x-k8s-io-v1beta2-resourceflavor',
         '/mutate-kueue-x-k8s-io-v1beta2-workload', '/validate-kueue-x-k8s-io-v1beta2-clusterqueue',
         '/validate-kueue-x-k8s-io-v1beta2-localqueue', '/validate-kueue-x-k8s-io-v1beta2-resourceflavor',
         '/validate-kueue-x-k8s-io-v1beta2-cohort', '/validate-kueue-x-k8s-io-v1beta2-workload',
         '/validate-kueue-x-k8s-io-v1beta2-workloadpriorityclass', '/mutate-kueue-x-k8s-io-v1beta1-workload',
         '/validate-kueue-x-k8s-io-v1beta1-clusterqueue', '/mutate-batch-v1-job', '/validate-batch-v1-job',
         '/mutate-kubeflow-org-v1-pytorchjob', '/validate-kubeflow-org-v1-pytorchjob', '/convert']
kind_path = {'ClusterQueue': [0, 3, 10], 'ResourceFlavor': [1, 5], 'Workload': [2, 7, 9],
             'LocalQueue': [4], 'Cohort': [6], 'WorkloadPriorityClass': [8], 'Job': [11, 12],
             'PyTorchJob': [13, 14]}
for i, o in enumerate(objs + [json.loads(open('test/data/webhook/job.json').read()),
                              json.loads(open('test/data/webhook/pytorchjob.json').read())]):
    for pi in kind_path.get(o.get('kind'), []):
        for op in ['CREATE', 'UPDATE']:
            req = {'uid': f'u{i}', 'operation': op, 'namespace': o['metadata'].get('namespace', ''),
                   'name': o['metadata'].get('name', ''), 'object': o}
            if op == 'UPDATE':
                req['oldObject'] = o
            review = {'apiVersion': 'admission.k8s.io/v1', 'kind': 'AdmissionReview', 'request': req}
            put('webhook', f'{i:02d}-{pi:02d}-{op}', bytes([pi]) + json.dumps(review).encode())
    if o.get('apiVersion', '').startswith('kueue.x-k8s.io/'):
        review = {'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'ConversionReview',
                  'request': {'uid': f'c{i}', 'desiredAPIVersion': 'kueue.x-k8s.io/v1beta1',
                              'objects': [o]}}
        put('webhook', f'{i:02d}-convert', bytes([15]) + json.dumps(review).encode())

# kubeconfig: the test kubeconfigs, and a small token one
for p in ['test/data/kube/config.yaml', 'test/data/kube/second.yaml']:
    put('kubeconfig', os.path.basename(p), open(p, 'rb').read())
put('kubeconfig', 'token.yaml', '''apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: UEVNLUNB
contexts:
- name: c
  context: {cluster: k, user: u, namespace: team-a}
users:
- name: u
  user: {token: abc}
''')
